"""Reversible instance patching: a model is changed only through `Patches.set`,
which remembers every attribute it replaced, so `undo()` restores the model
exactly (the library's classes are never edited)."""

import copy
import itertools
from collections import Counter
from typing import Any, List, Tuple

import torch

_MISSING = object()


class Patches:
    def __init__(self) -> None:
        self._saved: List[Tuple[Any, str, Any]] = []
        self.counts: Counter = Counter()

    def set(self, obj: Any, name: str, value: Any, kind: str) -> None:
        """Sets obj.name = value and counts one replacement of `kind`."""
        self._saved.append((obj, name, obj.__dict__.get(name, _MISSING)))
        setattr(obj, name, value)
        self.counts[kind] += 1

    def undo(self) -> None:
        """Restores every replaced attribute, newest first."""
        for obj, name, old in reversed(self._saved):
            if old is _MISSING:
                delattr(obj, name)
            else:
                setattr(obj, name, old)
        self._saved.clear()
        self.counts.clear()

    def require(self, *kinds: str) -> None:
        """Fails when a kind was never applied: a silent no-op swap is the
        most common integration bug."""
        missing = [k for k in kinds if self.counts[k] == 0]
        if missing:
            raise RuntimeError(f"nothing was replaced for: {', '.join(missing)}")

    def summary(self) -> str:
        return ", ".join(f"{n} {k}" for k, n in sorted(self.counts.items()))


def sharing_twin(model: torch.nn.Module) -> torch.nn.Module:
    """A second model object whose modules are copies but whose parameters
    and buffers are the model's own tensors: patching the twin leaves the
    model as it was, at no extra memory, so both can be compiled and timed
    side by side."""
    shared = {id(t): t for t in itertools.chain(model.parameters(), model.buffers())}
    return copy.deepcopy(model, memo=shared)
