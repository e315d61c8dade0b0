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

    The message is one line meant for the user, without a traceback.
    """


def input_warning(meta: dict, message: str) -> None:
    """Record a one-line warning about the input in a trace's meta (see the module docstring)."""
    meta.setdefault("warnings", []).append(message)
