"""The value check run before anything is timed: an implementation (our op or a peer) is called
on fresh inputs and its outputs are compared with the project's float64 reference.

A value passes when |got - want| <= atol + rtol * |want| (the harness's rule, docs/harness.md).
NaN or Inf where the reference is finite never passes; where the reference itself is NaN or
infinite, the same value is expected.
"""

from dataclasses import dataclass

import torch

from peer_text import describe_exception

# Elements compared at a time: bounds the float64 temporaries of a huge output.
CHUNK_ELEMENTS = 1 << 26


@dataclass
class ValueCheck:
    problem: str = ""  # "" when every output matched
    max_abs_error: float = 0.0  # over elements where both values are finite


def reference_copies(args):
    """float64 copies of the floating-point tensor arguments (made before the call, so an op
    that writes its inputs cannot change what the reference sees); other tensors are cloned,
    anything else is passed as it is."""
    copies = []
    for a in args:
        if isinstance(a, torch.Tensor):
            a = a.detach()
            copies.append(a.to(torch.float64) if a.is_floating_point() else a.clone())
        else:
            copies.append(a)
    return tuple(copies)


def as_outputs(value, who):
    """A tensor or a tuple/list of tensors, as a list; anything else is a ValueError."""
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    for i, item in enumerate(items):
        if not isinstance(item, torch.Tensor):
            raise ValueError(f"{who} returned {type(item).__name__} (output {i}), "
                             "expected a tensor or a tuple/list of tensors")
    return items


def position(flat_index, shape):
    """The multi-dimensional index of a flat (row-major) index, as '[i, j]'."""
    index = []
    for size in reversed(shape):
        index.append(flat_index % size if size else 0)
        flat_index = flat_index // size if size else 0
    return "[" + ", ".join(str(i) for i in reversed(index)) + "]"


def _first(mask):
    return int(mask.to(torch.uint8).argmax())  # argmax returns the first maximum


def _compare_one(got, want, atol, rtol):
    """(nonfinite count, first, mismatch count, first, max abs error) over one output."""
    g = got.detach().reshape(-1)
    w = want.detach().to(g.device).reshape(-1)
    nonfinite, mismatch, first_nonfinite, first_mismatch, max_error = 0, 0, None, None, 0.0
    for start in range(0, g.numel(), CHUNK_ELEMENTS):
        gc = g[start:start + CHUNK_ELEMENTS].to(torch.float64)
        wc = w[start:start + CHUNK_ELEMENTS].to(torch.float64)
        want_finite, got_finite = torch.isfinite(wc), torch.isfinite(gc)
        both_finite = want_finite & got_finite
        error = (gc - wc).abs()
        bad_nonfinite = want_finite & ~got_finite
        same_special = (gc == wc) | (torch.isnan(gc) & torch.isnan(wc))
        bad_value = (both_finite & (error > atol + rtol * wc.abs())) | (~want_finite & ~same_special)
        count = int(bad_nonfinite.sum())
        if count and first_nonfinite is None:
            first_nonfinite = start + _first(bad_nonfinite)
        nonfinite += count
        count = int(bad_value.sum())
        if count and first_mismatch is None:
            first_mismatch = start + _first(bad_value)
        mismatch += count
        if bool(both_finite.any()):
            max_error = max(max_error, float(error[both_finite].max()))
    return nonfinite, first_nonfinite, mismatch, first_mismatch, max_error


def _value_at(tensor, flat_index):
    return f"{float(tensor.detach().reshape(-1)[flat_index]):.6g}"


def compare(got, want, atol, rtol):
    """Compares what an implementation returned with what the reference returned."""
    try:
        gots, wants = as_outputs(got, "the call"), as_outputs(want, "the reference")
    except ValueError as e:
        return ValueCheck(f"incorrect (type): {e}")
    if len(gots) != len(wants):
        return ValueCheck(f"incorrect (count): {len(gots)} outputs, the reference has {len(wants)}")
    max_error = 0.0
    for k, (g, w) in enumerate(zip(gots, wants)):
        label = f"output {k}: " if len(gots) > 1 else ""
        if tuple(g.shape) != tuple(w.shape):
            return ValueCheck(f"incorrect (shape): {label}shape {list(g.shape)}, "
                              f"the reference has {list(w.shape)}")
        nonfinite, first_nf, mismatch, first_mm, error = _compare_one(g, w, atol, rtol)
        max_error = max(max_error, error)
        shape, total = tuple(g.shape), g.numel()
        if nonfinite:
            return ValueCheck(
                f"incorrect (nonfinite): {label}{nonfinite} of {total} elements are NaN or Inf "
                f"where the reference is finite (first at {position(first_nf, shape)}: got "
                f"{_value_at(g, first_nf)}, want {_value_at(w, first_nf)})", max_error)
        if mismatch:
            return ValueCheck(
                f"incorrect (mismatch): {label}{mismatch} of {total} elements outside "
                f"atol={atol:g} rtol={rtol:g} (first at {position(first_mm, shape)}: got "
                f"{_value_at(g, first_mm)}, want {_value_at(w, first_mm)})", max_error)
    return ValueCheck("", max_error)


def as_arguments(value):
    """What make_inputs returned, as the positional arguments: a tuple or a list."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"make_inputs returned {type(value).__name__}, "
                        "expected a tuple of positional arguments")
    return tuple(value)


def check_values(call, make_inputs, reference, atol, rtol):
    """call(*inputs) on fresh inputs against reference(*float64 copies of the same inputs)."""
    try:
        value = make_inputs()
    except Exception as e:  # noqa: BLE001 - the user's code; reported, not raised
        return ValueCheck(f"make_inputs raised: {describe_exception(e)}")
    try:
        inputs = as_arguments(value)
    except TypeError as e:
        return ValueCheck(str(e))
    copies = reference_copies(inputs)
    try:
        got = call(*inputs)
    except Exception as e:  # noqa: BLE001
        return ValueCheck(f"raised: {describe_exception(e)}")
    try:
        want = reference(*copies)
    except Exception as e:  # noqa: BLE001
        return ValueCheck(f"the reference raised: {describe_exception(e)}")
    return compare(got, want, atol, rtol)
