class Config:
    """Parsed INI data: section name -> {key: value}."""

    def __init__(self, sections):
        self.sections = sections

    def get(self, section, key, default=None):
        return self.sections.get(section, {}).get(key, default)

    def getint(self, section, key, default=None):
        value = self.get(section, key)
        return default if value is None else int(value)
