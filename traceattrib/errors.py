"""Errors that mean "this input cannot be used", reported as one line and exit status 2."""


class TraceError(Exception):
    """The input is missing, unreadable, not a trace, or lacks what the command needs.

    The message is one line meant for the user, without a traceback.
    """
