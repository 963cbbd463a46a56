"""The server's features: each module builds its payloads from lint results and registers its
handlers with `register(server)`, given the server as a `host.Host`. The modules are listed in
one place, `server.FEATURE_MODULES`; this package imports none of them.
"""
