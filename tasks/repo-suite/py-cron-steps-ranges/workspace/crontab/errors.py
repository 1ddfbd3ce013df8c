class CronError(ValueError):
    pass
