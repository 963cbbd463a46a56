"""What a feature module is given: the server's API, as a protocol (esbonio's model).

`server.SurfaceLintServer` is the one implementation; feature modules (`features/*`) receive it
in `register(server)` and type it as `Host`, so they import this module, never `server`.
Everything named here lives below the features: nothing calls back up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from lsprotocol import types

from .diagnostic_json import DiagnosticBuilder
from .features.common import Positions
from .lint import LintResult
from .scheduler import Scheduler
from .wire import ParamField
from .workspace import ServerState


class Host(Protocol):
    state: ServerState
    scheduler: Scheduler
    score_pool: ThreadPoolExecutor
    markdown_hover: bool
    markdown_completion: bool
    first_reports: dict[str, tuple[str, Any]]  # uri -> (resultId, items) of first.py's answer to its first pull

    @property
    def protocol(self) -> Any: ...  # pygls's LanguageServerProtocol (its feature table: `fm`)

    def handle(self, method: str, options: Any = None,
               params: Mapping[str, ParamField] | None = None) -> Callable[[Any], Any]: ...

    async def current_result(self, uri: str) -> LintResult | None: ...

    async def at(self, uri: str, position: types.Position) -> tuple[LintResult, int, int] | None: ...

    def positions(self) -> Positions: ...

    def diagnostic_builder(self) -> DiagnosticBuilder: ...

    def log_error(self, message: str) -> None: ...

    def log_warning(self, message: str) -> None: ...
