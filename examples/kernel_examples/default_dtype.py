"""Building a model in a dtype: transformers and diffusers create their
parameters in torch's default dtype, so a bf16 model is built with that
default set, and the caller's default is restored afterwards."""

import contextlib

import torch


@contextlib.contextmanager
def default_dtype(dtype: torch.dtype):
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)
