"""What the input did wrong, for the user: errors end the command, warnings do not.

TraceError: the input cannot be used (missing, unreadable, not a trace, lacks what the command
needs); the CLI prints its message as one line and exits with status 2.

input_warning(meta, message): a reader dropped or repaired something and the result is still
right (e.g. "dropped 3 kernels whose end precedes their start (table CUPTI_ACTIVITY_KIND_KERNEL)").
The message goes into trace.meta["warnings"], which the cache keeps, and the CLI prints each as
"traceattrib: warning: MESSAGE" on stderr, for a fresh parse and a cached load alike. Readers
never print.
"""
from __future__ import annotations


class TraceError(Exception):
    """The input is missing, unreadable, not a trace, or lacks what the command needs.

    The message is one line meant for the user, without a traceback. When it is about parameters
    of the call, `param` names them (one name or several) and the message holds "{name}" where a
    parameter is meant: str() says the parameter's own name, a front end its own (the CLI its
    option: `text(names)`). `reason`: a short code for callers that react to this error, never its
    words.
    """

    def __init__(self, message: str, param: str | tuple[str, ...] | None = None, reason: str | None = None):
        self.template = message
        self.param = param
        self.reason = reason
        super().__init__(self.text())

    def __reduce__(self):  # kept whole across processes (Dask workers)
        return (type(self), (self.template, self.param, self.reason))

    @property
    def params(self) -> tuple[str, ...]:
        return (self.param,) if isinstance(self.param, str) else tuple(self.param or ())

    def text(self, names: dict[str, str] | None = None) -> str:
        """The message with each parameter called by its name in `names` (default: its own)."""
        out = self.template
        for p in self.params:
            out = out.replace("{" + p + "}", (names or {}).get(p, p))
        return out


def input_warning(meta: dict, message: str) -> None:
    """Record a one-line warning about the input in a trace's meta (see the module docstring)."""
    meta.setdefault("warnings", []).append(message)


def warnings_of(meta: dict) -> list[str]:
    """What a front end tells the user about the input of a report or trace: what its cache
    entries needed (meta["cache_warnings"], cache.WARNINGS) then what the readers dropped or
    repaired (meta["warnings"]), each once, in order."""
    return list(dict.fromkeys(list(meta.get("cache_warnings") or []) + list(meta.get("warnings") or [])))
