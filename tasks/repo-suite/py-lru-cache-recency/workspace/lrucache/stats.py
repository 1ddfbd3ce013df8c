from dataclasses import dataclass


@dataclass
class Stats:
    hits: int = 0
    misses: int = 0
    evictions: int = 0
