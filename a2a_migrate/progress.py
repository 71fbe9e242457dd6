"""A progress bar on stderr, for large batches run at a terminal, and nothing otherwise."""

from __future__ import annotations

from typing import TextIO

#: Batches smaller than this finish before a bar would help.
MIN_FILES = 200
_WIDTH = 30


class Progress:
    """Counts processed files and redraws one status line, at most every 1%."""

    def __init__(self, total: int, stream: TextIO, enabled: bool) -> None:
        self.total, self.stream = total, stream
        self.enabled = enabled and total >= MIN_FILES
        self.done = 0
        self._shown = -1

    @classmethod
    def for_terminal(cls, total: int, stream: TextIO, quiet: bool) -> Progress:
        """A bar only when ``stream`` is a terminal and the batch is large."""
        return cls(total, stream, not quiet and stream.isatty())

    def tick(self) -> None:
        """One more file processed."""
        self.done += 1
        if not self.enabled:
            return
        percent = self.done * 100 // self.total
        if percent != self._shown:
            self._shown = percent
            filled = self.done * _WIDTH // self.total
            self.stream.write(f"\r[{'#' * filled}{'.' * (_WIDTH - filled)}] {self.done}/{self.total}")
            self.stream.flush()

    def clear(self) -> None:
        """Erase the bar so a message can be printed on a clean line (it is redrawn on the next tick)."""
        if self.enabled and self._shown >= 0:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._shown = -1
