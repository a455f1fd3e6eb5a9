"""CPU tests of the peer worker's value check (run: pytest tools/harness/python)."""

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peer_values  # noqa: E402
from peer_values import check_values, compare, position, reference_copies  # noqa: E402

BF16_TOL = (1e-2, 1.6e-2)  # docs/harness.md's bf16 row


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def bf16_inputs():
    torch.manual_seed(0)
    return (torch.randn(7, 33, dtype=torch.bfloat16), torch.randn(33, dtype=torch.bfloat16), 1e-6)


def test_a_correct_bf16_op_passes_with_its_rounding_error():
    def ours(x, w, eps):
        return torch.nn.functional.rms_norm(x, (x.shape[-1],), w, eps)

    check = check_values(ours, bf16_inputs, rms_norm, *BF16_TOL)
    assert check.problem == ""
    assert 0 < check.max_abs_error < 0.1  # bf16 output rounding, not zero


def test_a_mismatch_gives_the_count_and_the_first_position():
    want = torch.zeros(4, 5, dtype=torch.float64)
    got = torch.zeros(4, 5)
    got[1, 2], got[3, 0] = 0.5, -1.0
    check = compare(got, want, 1e-3, 1e-3)
    assert check.problem == ("incorrect (mismatch): 2 of 20 elements outside atol=0.001 "
                             "rtol=0.001 (first at [1, 2]: got 0.5, want 0)")
    assert check.max_abs_error == 1.0


def test_the_tolerance_is_atol_plus_rtol_times_the_reference():
    want = torch.tensor([100.0, 1.0], dtype=torch.float64)
    assert compare(torch.tensor([100.9, 1.0]), want, 0.0, 1e-2).problem == ""
    assert "1 of 2" in compare(torch.tensor([101.1, 1.0]), want, 0.0, 1e-2).problem
    assert compare(torch.tensor([100.0, 1.05]), want, 0.06, 0.0).problem == ""


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_nan_or_inf_where_the_reference_is_finite_is_nonfinite(bad):
    got = torch.ones(10)
    got[7] = bad
    check = compare(got, torch.ones(10, dtype=torch.float64), 1.0, 1.0)  # any tolerance
    assert check.problem.startswith("incorrect (nonfinite): 1 of 10 elements are NaN or Inf")
    assert "first at [7]" in check.problem


def test_a_nonfinite_reference_expects_the_same_value():
    want = torch.tensor([float("nan"), float("inf"), 1.0], dtype=torch.float64)
    assert compare(torch.tensor([float("nan"), float("inf"), 1.0]), want, 0, 0).problem == ""
    finite_for_nan = compare(torch.tensor([0.0, float("inf"), 1.0]), want, 1, 1)
    assert finite_for_nan.problem.startswith("incorrect (mismatch): 1 of 3")
    wrong_infinity = compare(torch.tensor([float("nan"), float("-inf"), 1.0]), want, 1, 1)
    assert "first at [1]" in wrong_infinity.problem


def test_shape_count_and_type_mismatches_are_named():
    want = torch.zeros(2, 3, dtype=torch.float64)
    assert compare(torch.zeros(3, 2), want, 1, 1).problem == (
        "incorrect (shape): shape [3, 2], the reference has [2, 3]")
    assert compare((want, want), want, 1, 1).problem == (
        "incorrect (count): 2 outputs, the reference has 1")
    assert "returned int" in compare(3, want, 1, 1).problem
    second_wrong = compare((want.float(), torch.zeros(5)), (want, torch.zeros(4)), 1, 1)
    assert second_wrong.problem.startswith("incorrect (shape): output 1: shape [5]")


def test_outputs_are_compared_in_order():
    a, b = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    assert compare([a.float(), b.float()], (a, b), 0, 0).problem == ""
    assert "output 0:" in compare([b.float(), a.float()], (a, b), 0, 0).problem


def test_counts_and_first_position_span_chunks(monkeypatch):
    monkeypatch.setattr(peer_values, "CHUNK_ELEMENTS", 7)
    got = torch.zeros(50)
    got[[12, 30, 49]] = 1.0
    check = compare(got, torch.zeros(50, dtype=torch.float64), 0.1, 0)
    assert check.problem.startswith("incorrect (mismatch): 3 of 50 elements")
    assert "first at [12]" in check.problem


def test_the_reference_sees_the_inputs_from_before_an_in_place_call():
    def doubles_in_place(x):
        return x.mul_(2)

    check = check_values(doubles_in_place, lambda: (torch.arange(6.0),), lambda x: x * 2, 0, 0)
    assert check.problem == ""


def test_reference_copies_are_float64_for_floating_tensors_only():
    x, idx = torch.randn(3, dtype=torch.bfloat16), torch.tensor([2, 0])
    copies = reference_copies((x, idx, 1e-6, "mode"))
    assert copies[0].dtype == torch.float64 and torch.equal(copies[0], x.double())
    assert copies[1].dtype == torch.int64 and copies[1].data_ptr() != idx.data_ptr()
    assert copies[2:] == (1e-6, "mode")


def test_failures_of_the_call_the_reference_and_the_inputs_are_problems():
    def boom(*_):
        raise RuntimeError("CUDA error: invalid argument\nmore lines")

    ok_inputs = lambda: (torch.ones(2),)  # noqa: E731
    assert check_values(boom, ok_inputs, lambda x: x, 0, 0).problem == (
        "raised: RuntimeError: CUDA error: invalid argument")
    assert check_values(lambda x: x, ok_inputs, boom, 0, 0).problem.startswith(
        "the reference raised: RuntimeError")
    assert check_values(lambda x: x, boom, lambda x: x, 0, 0).problem.startswith(
        "make_inputs raised: RuntimeError")
    assert check_values(lambda x: x, lambda: torch.ones(2), lambda x: x, 0, 0).problem == (
        "make_inputs returned Tensor, expected a tuple of positional arguments")


def test_position_unravels_row_major():
    assert position(0, (4, 5)) == "[0, 0]"
    assert position(13, (4, 5)) == "[2, 3]"
    assert position(13, (2, 3, 4)) == "[1, 0, 1]"
    assert position(0, ()) == "[]"
