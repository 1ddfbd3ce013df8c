class UsageError(Exception):
    """A command line that does not match the declared options."""
