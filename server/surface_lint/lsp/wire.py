"""The JSON-RPC wire: pygls's protocol made spec-exact, pre-serialised results, and `start()`.

pygls 2.1.1 leaves some of LSP 3.17's lifecycle to the server; this protocol enforces it:

* params that do not fit the method's type (`line: -1`, a string line, a code action
  without a range) get -32602 InvalidParams (pygls logs them and never answers);
  ints, strings and booleans are not coerced (cattrs would read `"3"` as 3);
* a request before `initialize` gets -32002 ServerNotInitialized, a notification then is
  dropped; a second `initialize` gets -32600 InvalidRequest;
* any request after `shutdown` gets -32600 InvalidRequest (pygls drops it silently);
* `exit` ends the process with 0 after `shutdown` and 1 without it (pygls exits 0 always);
  on TCP it ends only that connection's session;
* a body that is not JSON gets -32700 Parse error (id null) and one that is not a JSON-RPC
  object -32600 (pygls logs a traceback and answers nothing); the session goes on;
* our own methods (`surfaceLint/*`) declare their params (`ParamField`) and get the same
  -32602 as the standard ones; a rejected message is logged in one line, not a traceback;
* a notification (standard or ours) whose params do not fit is ignored and said to the client
  as a window/logMessage of type Error with the bad field's path (there is no response to carry it);
  before `initialize` and after `shutdown` it is dropped like any notification.

TCP: every connection is its own session (its own server object, documents, settings,
lint pool); nothing is shared but the process. Only loopback addresses may be bound.
"""

from __future__ import annotations

import asyncio
import hmac
import inspect
import json
import logging
import re
import threading
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import cattrs
from lsprotocol import types
from lsprotocol.types import ResponseErrorMessage
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import JsonRPCRequestMessage, LanguageServerProtocol, default_converter, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCResponseMessage

from .early import CONTENT_LENGTH, initialize_result

log = logging.getLogger("surface_lint.lsp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002
REQUEST_FAILED = -32803  # LSP's RequestFailed: a well-formed request the server refuses to serve
TOKEN_OPTION = "token"  # initializationOptions.token: what a TCP client proves itself with


class RequestFailed(Exception):
    """Raised by a handler: the request is answered with this error (REQUEST_FAILED unless
    said), its message as given, in one log line and never a traceback."""

    def __init__(self, message: str, code: int = REQUEST_FAILED) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class RawResult(str):
    """A handler result that is already JSON text (sent as is, without cattrs)."""


class _Rejected:
    """A request whose params could not be structured: answered with InvalidParams."""

    jsonrpc = "2.0"

    def __init__(self, msg_id: Any, method: str, problem: str) -> None:
        self.id = msg_id
        self.method = method
        self.problem = problem


class _IgnoredNotification:
    """A notification whose params do not fit: ignored, and said to the client (no response can carry it)."""

    jsonrpc = "2.0"

    def __init__(self, method: str, problem: str) -> None:
        self.method = method
        self.problem = problem


@dataclass(frozen=True)
class ParamField:
    """One field of a custom method's params object: its JSON type and whether it must be given."""

    kind: type  # str, bool or list: the JSON string, boolean or array (checked exactly, as the strict converter does)
    required: bool = False  # else it may be absent or null
    items: type = str  # a list's items: str or bool
    non_empty: bool = False  # strings (a list's items too) must not be ""


ErrorHandler = Callable[[Exception, type[JsonRpcException]], Any]
_JSON_TYPES = {str: "a string", bool: "a boolean"}
_JSON_ARRAYS = {str: "an array of strings", bool: "an array of booleans"}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def check_params(params: Any, fields: Mapping[str, ParamField]) -> str | None:
    """What is wrong with a custom method's params (cattrs's wording, JSON paths), or None."""
    if params is None and not any(f.required for f in fields.values()):
        return None  # params may be omitted when nothing is required (JSON-RPC 2.0)
    if not isinstance(params, dict):
        return f"expected an object, got {_json_type(params)} @ $.params"
    for name, spec in fields.items():
        if name not in params:
            if spec.required:
                return f"required field missing @ $.params.{name}"
            continue
        value = params[name]
        if value is None and not spec.required:
            continue  # an optional field may be null (the extension sends `predicate: null`)
        problem = _field_problem(value, spec, f"$.params.{name}")
        if problem is not None:
            return problem
    return None


def _field_problem(value: Any, spec: ParamField, path: str) -> str | None:
    if spec.kind is list:
        if type(value) is not list:
            return f"expected {_JSON_ARRAYS[spec.items]}, got {json.dumps(value)} @ {path}"
        for index, item in enumerate(value):
            problem = _scalar_problem(item, spec.items, spec.non_empty, f"{path}[{index}]")
            if problem is not None:
                return problem
        return None
    return _scalar_problem(value, spec.kind, spec.non_empty, path)


def _scalar_problem(value: Any, kind: type, non_empty: bool, path: str) -> str | None:
    if type(value) is not kind:
        return f"expected {_JSON_TYPES[kind]}, got {json.dumps(value)} @ {path}"
    if non_empty and value == "":
        return f'expected a non-empty string, got "" @ {path}'
    return None


def _strict(kind: type) -> Callable[[Any, Any], Any]:
    expected = {int: "an integer", **_JSON_TYPES}[kind]

    def structure(value: Any, target: Any) -> Any:
        if type(value) is not kind:  # bool is not an int here, "3" is not a number
            raise TypeError(f"expected {expected}, got {json.dumps(value)}")  # the value as the client wrote it
        # The hook also dispatches for subclasses: the str and int enums of lsprotocol.
        return value if target is kind else target(value)
    return structure


def strict_converter() -> cattrs.Converter:
    """pygls's converter without its coercions of ints, strings and booleans."""
    converter: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]
    for kind in (int, str, bool):
        converter.register_structure_hook(kind, _strict(kind))
    return converter


def _problems(exc: BaseException, message: Any = None) -> str:
    """cattrs's problems with a message, each `text @ JSON path`; with the raw `message`, a value
    that is not an object where one goes is named where it stands, in JSON's words."""
    def describe(error: BaseException, _: Any) -> str:
        if isinstance(error, KeyError):
            return "required field missing"
        return str(error) or type(error).__name__

    cause = exc.__cause__ or exc
    try:
        found = cattrs.transform_error(cause, path="$", format_exception=describe)
    except Exception:  # not a cattrs error: say what it is
        found = [str(cause) or type(cause).__name__]
    return "; ".join(dict.fromkeys(_in_json_terms(item, message) for item in found))  # one line per place


# How Python says it was handed something other than a mapping (cattrs passes these on).
_NOT_A_MAPPING = ("not subscriptable", "indices must be integers", "is not iterable", "Only input mappings are supported")
_PATH_STEP = re.compile(r"\.([A-Za-z_]\w*)|\[(\d+)\]")


def _in_json_terms(item: str, message: Any) -> str:
    text, at, path = item.rpartition(" @ ")
    if not at:
        return item
    # cattrs names Python attributes (content_changes); the client wrote JSON names (contentChanges).
    path = _camel(path)
    if message is None:
        return f"{text} @ {path}"
    node, walked = message, "$"
    for name, index in _PATH_STEP.findall(path.removeprefix("$")):
        if name and not isinstance(node, dict):
            return f"expected an object, got {_json_type(node)} @ {walked}"
        if index and not isinstance(node, list):
            return f"expected an array, got {_json_type(node)} @ {walked}"
        if (name and name not in node) or (index and int(index) >= len(node)):
            return f"{text} @ {path}"  # a missing field: cattrs's words are right
        node = node[name] if name else node[int(index)]
        walked += f".{name}" if name else f"[{index}]"
    if any(p in text for p in _NOT_A_MAPPING) and not isinstance(node, dict):
        return f"expected an object, got {_json_type(node)} @ {walked}"
    return f"{text} @ {path}"


def _camel(path: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path)


class Protocol(LanguageServerProtocol):
    """pygls's protocol, with the lifecycle of LSP 3.17, our own document store and
    pre-serialised results.

    Open documents live in `ServerState.docs` (lines split as the client splits them, edits
    applied in O(edit)); pygls's workspace copy of them is not kept.
    """

    _writes: ClassVar[set[asyncio.Future[Any]]] = set()  # pending async writes, kept alive until done

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_seen = False
        self.exit_code: int | None = None  # set by `exit`
        self.on_exit: Callable[[int], None] | None = None  # how this session ends (stdio or TCP)
        self.custom_params: dict[str, Mapping[str, ParamField]] = {}  # our methods' params, by method
        self.token: str | None = None  # a TCP session's: `initialize` must carry it (TOKEN_OPTION)
        # (id, params) of the `initialize` early.py answered before the server was imported: the
        # server initializes from it as usual, and its own answer is not sent again.
        self.answered_early: tuple[Any, dict[str, Any]] | None = None
        # The requests first.py answered (the first pull of a cold open): the
        # server's own answers are compared with them, not sent again.
        self.answered_first: dict[Any, tuple[str, str]] = {}  # id -> (document URI, result JSON)

    # --- lifecycle ---------------------------------------------------------------------------

    def structure_message(self, data: dict[str, Any]) -> Any:
        if "jsonrpc" not in data:
            return data  # a nested object (params and below), or not a JSON-RPC message at all
        method = data.get("method")
        if isinstance(method, str) and "params" not in data and self.get_message_type(method) is None:
            # JSON-RPC 2.0 lets `params` be omitted (VS Code does for `surfaceLint/didGrantTrust`);
            # pygls's untyped message classes require the key.
            data = {**data, "params": None}
        if isinstance(method, str) and (fields := self.custom_params.get(method)) is not None:
            problem = check_params(data.get("params"), fields)
            if problem is not None:
                return _Rejected(data["id"], method, problem) if "id" in data else _IgnoredNotification(method, problem)
        if data.get("params") is None and len(getattr(self._params_type(method), "__attrs_attrs__", (None,))) == 0:
            data = {**data, "params": {}}  # omitted (JSON-RPC 2.0) where the object has no fields: `initialized`
        problem = self._params_shape(method, data.get("params"))
        if isinstance(method, str) and problem is not None:
            return _Rejected(data["id"], method, problem) if "id" in data else _IgnoredNotification(method, problem)
        try:
            return self._structure(data)
        except Exception as exc:
            if "id" in data and isinstance(method, str):
                return _Rejected(data["id"], method, _problems(exc, data))
            if isinstance(method, str):
                return _IgnoredNotification(method, _problems(exc, data))
            raise

    def _params_type(self, method: Any) -> Any:
        """The lsprotocol class of a standard method's params (NoneType for none), else None."""
        message_type = self.get_message_type(method) if isinstance(method, str) else None
        # lsprotocol's messages are attrs classes: `params` is an attrs class (an object) or NoneType.
        return next((f.type for f in getattr(message_type, "__attrs_attrs__", ()) if f.name == "params"), None)

    def _params_shape(self, method: Any, params: Any) -> str | None:
        """A standard method whose params are an object, given something else (cattrs would say
        `argument of type 'int' is not iterable`)."""
        if not isinstance(params, dict) and hasattr(self._params_type(method), "__attrs_attrs__"):
            return f"expected an object, got {_json_type(params)} @ $.params"
        return None

    def _structure(self, data: dict[str, Any]) -> Any:
        """pygls's structure_message without its traceback on every rejected message."""
        if "id" in data:
            if "error" in data:
                return self._converter.structure(data, ResponseErrorMessage)
            if "method" in data:
                return self._converter.structure(data, self.get_message_type(data["method"]) or JsonRPCRequestMessage)
            response_type = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
            return self._converter.structure(data, response_type)
        notification_type = self.get_message_type(data.get("method", "")) or JsonRPCNotification
        return self._converter.structure(data, notification_type)

    def receive(self, body: bytes, error_handler: ErrorHandler) -> None:
        """Handle one message body (the bytes inside one Content-Length frame)."""
        try:
            message = json.loads(body, object_hook=self.structure_message)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            reason = "nesting too deep" if isinstance(exc, RecursionError) else str(exc)
            log.warning("a message that is not JSON was answered with -32700: %s", reason)
            self._error(None, PARSE_ERROR, f"Parse error: the message is not JSON: {reason}")
            return
        except Exception as exc:
            log.error("could not read a message: %s: %s", type(exc).__name__, exc)
            error_handler(exc, JsonRpcException)
            return
        if isinstance(message, dict) or not hasattr(message, "jsonrpc"):
            msg_id = message.get("id") if isinstance(message, dict) else None
            msg_id = msg_id if isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool) else None
            log.warning("a message that is not a JSON-RPC 2.0 object was answered with -32600")
            self._error(msg_id, INVALID_REQUEST,
                        'Invalid Request: a message must be a JSON object with "jsonrpc": "2.0"')
            return
        try:
            self.handle_message(message)
        except Exception as exc:  # a bug: logged with its traceback, the session goes on
            log.exception("could not handle a message")
            error_handler(exc, JsonRpcException)

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        is_request = method is not None and hasattr(message, "id")
        if method == types.EXIT:
            super().handle_message(message)
            return
        if self._shutdown:
            if is_request:
                self._error(message.id, INVALID_REQUEST, f"the server is shut down; {method} is not served")
            return
        if not self.initialize_seen:
            if not is_request:
                return  # notifications before initialize are dropped (LSP 3.17)
            if method != types.INITIALIZE:
                self._error(message.id, SERVER_NOT_INITIALIZED, f"{method} before initialize")
                return
        elif is_request and method == types.INITIALIZE:
            self._error(message.id, INVALID_REQUEST, "initialize may be sent only once")
            return
        if isinstance(message, _IgnoredNotification):
            # No one to answer: the server says it to the client (see report_server_error).
            self._server.report_server_error(
                JsonRpcInvalidParams(f"invalid params for {message.method} (ignored): {message.problem}"), JsonRpcException)
            return
        if isinstance(message, _Rejected) and self._early(message) is not None:
            self._initialize_anyway(message)
            return
        if isinstance(message, _Rejected):
            log.warning("invalid params for %s (answered with -32602): %s", message.method, message.problem)
            self._error(message.id, INVALID_PARAMS, f"invalid params for {message.method}: {message.problem}")
            return
        if method == types.INITIALIZE:
            if self.token is not None and not self._token_given(message):
                self._refuse_client(message.id)
                return
            self.initialize_seen = True
        super().handle_message(message)

    def _early(self, message: Any) -> dict[str, Any] | None:
        """The params of the `initialize` early.py answered, when `message` is that request."""
        early = self.answered_early
        return early[1] if early is not None and getattr(message, "id", None) == early[0] else None

    def _initialize_anyway(self, message: _Rejected) -> None:
        """The early-answered `initialize` whose client capabilities do not structure: the client
        was told the server is initialized, so it initializes without them, and says why."""
        params = self._early(message) or {}
        log.warning("invalid params for initialize (answered early; going on without them): %s", message.problem)
        kept = {k: v for k, v in params.items() if k not in ("capabilities", "initializationOptions")}
        try:
            retry = self._structure({"jsonrpc": "2.0", "id": message.id, "method": types.INITIALIZE,
                                     "params": {**kept, "capabilities": {}}})
        except Exception as exc:  # what early.py checked structures; this would be a bug
            log.error("could not initialize from the early-answered params: %s", exc)
            return
        self.initialize_seen = True
        super().handle_message(retry)
        self._server.report_server_error(JsonRpcInvalidParams(
            f"invalid params for initialize (the server goes on without the client's capabilities and "
            f"initializationOptions): {message.problem}"), JsonRpcException)

    def _token_given(self, message: Any) -> bool:
        options = plain_json(getattr(message.params, "initialization_options", None))
        given = options.get(TOKEN_OPTION) if isinstance(options, Mapping) else None
        return isinstance(given, str) and self.token is not None and \
            hmac.compare_digest(given.encode("utf-8", "surrogatepass"), self.token.encode("utf-8"))

    def _refuse_client(self, msg_id: Any) -> None:
        """A TCP client without the server's token: told why, then disconnected."""
        log.warning("a TCP client without the server's token was refused")
        self._error(msg_id, REQUEST_FAILED, "this surface-lint server needs its token: pass it as "
                    f"initializationOptions.{TOKEN_OPTION} (it is printed when the server starts, or set with "
                    "--token-file or SURFACE_LINT_TOKEN)")
        if self.on_exit is not None:
            self.on_exit(1)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """pygls's, except that a handler's RequestFailed is answered with its own code and
        message (pygls would log a traceback and report it again as a server error)."""
        failed = future.exception() if future.done() and not future.cancelled() else None
        if isinstance(failed, RequestFailed):
            self._request_futures.pop(msg_id, None)
            log.warning("%s", failed.message)
            self._error(msg_id, failed.code, failed.message)
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _error(self, msg_id: Any, code: int, text: str) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": text}}))

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        code = 0 if self._shutdown else 1
        self.exit_code = code
        if self.on_exit is not None:
            self.on_exit(code)
        yield from ()

    # --- documents: ours, not pygls's workspace -----------------------------------------------

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None

    # --- output ------------------------------------------------------------------------------

    def _send_response(self, msg_id: Any, result: Any | None = None, error: Any = None) -> None:
        early = self.answered_early
        if early is not None and msg_id == early[0]:
            self.answered_early = None  # early.py sent the answer; this one is only compared with it
            sent = initialize_result(early[1], self._server.version or "")
            computed = error or json.loads(json.dumps(result, default=self._serialize_message))
            if computed != sent:
                log.warning("the early answer to initialize differs from the server's: %s", json.dumps(computed))
            return
        if msg_id in self.answered_first:
            self._compare_first(msg_id, self.answered_first.pop(msg_id), result, error)
            return
        if error is None and isinstance(result, RawResult):
            self.send_raw('{"jsonrpc":"2.0","id":' + json.dumps(msg_id) + ',"result":' + result + "}")
            return
        super()._send_response(msg_id, result, error)

    def _compare_first(self, msg_id: Any, first: tuple[str, str], result: Any, error: Any) -> None:
        """The server's answer to a pull first.py answered: the same report but for its resultId
        (each lint's own), else the client is told to pull again (workspace/diagnostic/refresh)."""
        computed = json.loads(result) if error is None and isinstance(result, str) else None
        given = json.loads(first[1])
        if isinstance(computed, dict):
            computed.pop("resultId", None)
        given.pop("resultId", None)
        if computed == given:
            return
        log.warning("the first answer to pull %s differs from the server's: %s", json.dumps(msg_id),
                    json.dumps(computed) if computed is not None else repr(error))
        refresh = getattr(self._server, "refresh_diagnostics", None)
        if callable(refresh):
            refresh()

    def send_raw(self, body: str) -> None:
        """Write one JSON-RPC message that is already JSON text."""
        if self.writer is None:
            return
        data = body.encode("utf-8")
        if self._include_headers:
            data = (f"Content-Length: {len(data)}\r\n"
                    f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n").encode() + data
        written = self.writer.write(data)
        if inspect.isawaitable(written):
            task = asyncio.ensure_future(written)
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)


async def read_messages(stop_event: threading.Event, reader: Any, protocol: Protocol,
                        error_handler: ErrorHandler) -> None:
    """pygls's `run_async` framing (headers, then Content-Length bytes), each body handed to
    `Protocol.receive` (which answers a body that is not JSON) until the stream ends."""
    content_length = 0
    while not stop_event.is_set():
        header = await reader.readline()
        if not header:
            break
        if not content_length:
            match = CONTENT_LENGTH.fullmatch(header)
            if match:
                content_length = int(match.group(1))
        if content_length and not header.strip():
            body = await reader.readexactly(content_length)
            content_length = 0
            if not body:
                break
            protocol.receive(body, error_handler)


def plain_json(value: Any) -> Any:
    """pygls hands untyped JSON over as namedtuples: back to dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain_json(v) for k, v in value._asdict().items()}
    if isinstance(value, Mapping):
        return {k: plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    return value
