"""Our kernels in a transformers Qwen3 model (transformers 5.17), swapped in
per instance and reversibly (kernel_examples.patching): the library's
classes and source are never edited.

- every Qwen3RMSNorm (the layer norms and the final norm) -> rms_norm;
- the decoder layer's `residual + attn` followed by post_attention_layernorm
  -> one fused_add_rms_norm (in place);
- the per-head QK-norms and apply_rotary_pos_emb -> qk_norm_rope on q and k
  in place, in [b, s, h, d] layout (one launch for the four: normalize,
  rotate, q and k); with a StaticCache (decode) qk_norm_rope_to_cache, which
  writes k's rows straight into the cache at its length, so the cache's
  key write (StaticLayer.update's index_copy_) is no launch of its own;
- the MLP's act_fn(gate) * up -> silu_mul (the projections stay cuBLAS GEMMs);
- with fuse_layer_boundaries=True also each layer's closing `residual + mlp`
  and the next layer's input norm (or the final norm) -> one
  fused_add_rms_norm: the layer hands the normalized tensor to the next
  norm through a LayerBoundary (one launch a layer fewer, and inductor's
  add + norm fusion across our ops, which compile alone has, is back).

The decoder layer and attention forwards below are transformers 5.17's,
line for line, except for those swaps. The fused add writes the sum into
the layer's input tensor (the previous layer's output, or the embeddings),
so the patch refuses a model configured to return hidden states."""

from types import MethodType
from typing import Dict

import torch

from transformers.cache_utils import StaticLayer
from transformers.models.qwen3 import modeling_qwen3 as qwen3

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kernel_examples.patching import Patches  # noqa: E402

TRANSFORMERS_VERSION = "5.17"


def _norm_forward(rms):
    def forward(self, hidden_states):
        return rms.rms_norm(hidden_states, self.weight, self.variance_epsilon)

    return forward


def _static_layer(past_key_values, layer_idx):
    """This attention's layer of the cache when it is a plain StaticLayer
    already allocated (a decode step after the prefill), else None: the
    only layer whose update qk_norm_rope_to_cache takes over."""
    layers = getattr(past_key_values, "layers", None)
    if layers is None or layer_idx >= len(layers):
        return None
    layer = layers[layer_idx]
    return layer if type(layer) is StaticLayer and layer.is_initialized else None


def _update_static_layer(rope, attention, layer, query_states, key_states, value_states, cos, sin):
    """StaticLayer.update (transformers 5.17) with k's QK-norm and rotation
    fused into its key write: q is normalized and rotated in place, k's
    result goes to layer.keys at slots cumulative_length + s (read by the
    kernel, before the length advances), values are copied as update() does.
    Returns the whole cache's keys and values, as update() does."""
    rope.qk_norm_rope_to_cache(query_states, key_states, attention.q_norm.weight,
                               attention.k_norm.weight, cos, sin, layer.keys,
                               layer.cumulative_length, attention.q_norm.variance_epsilon,
                               False, "bshd")
    kv_length = value_states.shape[-2]
    cache_position = torch.arange(kv_length, device=layer.device) + layer.cumulative_length
    layer.cumulative_length.add_(kv_length)
    layer.values.index_copy_(2, cache_position, value_states)
    return layer.keys, layer.values


def _attention_forward(rope):
    def forward(self, hidden_states, position_embeddings, attention_mask,
                past_key_values=None, **kwargs):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        # [b, s, h, d] until after the rotation: q_norm, k_norm and the rotation
        # in one launch, in place on the projections' outputs (new tensors, so
        # nothing else sees the change).
        query_states = self.q_proj(hidden_states).view(hidden_shape)
        key_states = self.k_proj(hidden_states).view(hidden_shape)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)

        cos, sin = position_embeddings
        static_layer = _static_layer(past_key_values, self.layer_idx)
        if static_layer is not None:
            key_states, value_states = _update_static_layer(
                rope, self, static_layer, query_states, key_states, value_states, cos, sin)
            query_states = query_states.transpose(1, 2)
        else:
            rope.qk_norm_rope(query_states, key_states, self.q_norm.weight, self.k_norm.weight,
                              cos, sin, self.q_norm.variance_epsilon, False, "bshd")
            query_states = query_states.transpose(1, 2)
            key_states = key_states.transpose(1, 2)
            if past_key_values is not None:
                key_states, value_states = past_key_values.update(key_states, value_states,
                                                                  self.layer_idx)

        attention_interface = qwen3.ALL_ATTENTION_FUNCTIONS.get_interface(
            self.config._attn_implementation, qwen3.eager_attention_forward
        )
        attn_output, attn_weights = attention_interface(
            self, query_states, key_states, value_states, attention_mask,
            dropout=0.0 if not self.training else self.attention_dropout,
            scaling=self.scaling, sliding_window=self.sliding_window, **kwargs,
        )
        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output, attn_weights

    return forward


class LayerBoundary:
    """What a decoder layer hands the norm after it (the next layer's input
    norm, or the final norm) when the boundaries are fused: the residual
    stream it returned and that stream already normalized with the next
    norm's weight. The next norm uses the hand-over only when it gets that
    very stream and is the norm it was meant for; otherwise it normalizes
    its input itself."""

    def __init__(self):
        self.clear()

    def hand_over(self, stream, normed, norm) -> None:
        self.stream, self.normed, self.norm = stream, normed, norm

    def take(self, stream, norm):
        """The normalized stream when it was handed to `norm`, else None."""
        if self.norm is not norm or self.stream is not stream:
            return None
        normed = self.normed
        self.clear()
        return normed

    def clear(self) -> None:
        self.stream = self.normed = self.norm = None


def _decoder_layer_forward(fused, next_norm=None, boundary=None):
    """The layer's forward; with next_norm and boundary, its closing
    residual add fused with next_norm (see LayerBoundary)."""
    def forward(self, hidden_states, attention_mask=None, position_ids=None,
                past_key_values=None, use_cache=False, position_embeddings=None, **kwargs):
        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        hidden_states, _ = self.self_attn(
            hidden_states=hidden_states, attention_mask=attention_mask,
            position_ids=position_ids, past_key_values=past_key_values,
            use_cache=use_cache, position_embeddings=position_embeddings, **kwargs,
        )
        # residual += attention output; hidden_states = norm(residual) * w.
        norm = self.post_attention_layernorm
        fused.fused_add_rms_norm(hidden_states, residual, norm.weight, norm.variance_epsilon)
        hidden_states = self.mlp(hidden_states)
        if next_norm is None:
            return residual + hidden_states
        # residual += mlp output (the layer's output); hidden_states = the
        # next norm of it, handed over.
        fused.fused_add_rms_norm(hidden_states, residual, next_norm.weight,
                                 next_norm.variance_epsilon)
        boundary.hand_over(residual, hidden_states, next_norm)
        return residual

    return forward


def _boundary_norm_forward(rms, boundary):
    """A norm after a fused boundary: the handed-over result when there is
    one for this input, else rms_norm."""
    def forward(self, hidden_states):
        normed = boundary.take(hidden_states, self)
        if normed is not None:
            return normed
        return rms.rms_norm(hidden_states, self.weight, self.variance_epsilon)

    return forward


def _mlp_forward(swiglu):
    def forward(self, x):
        return self.down_proj(swiglu.silu_mul(self.gate_proj(x), self.up_proj(x)))

    return forward


def apply(model, kernels: Dict[str, object], fuse_layer_boundaries: bool = False) -> Patches:
    """Swaps the four kernels into `model` (a Qwen3ForCausalLM or Qwen3Model).
    `kernels`: the loaded kernel modules keyed by template name ("rmsnorm",
    "fused_add_rmsnorm", "rope", "swiglu"). fuse_layer_boundaries: each
    layer's closing add fused with the next norm (see the module's
    docstring). Returns the Patches; undo() restores the model."""
    if getattr(model.config, "output_hidden_states", False):
        raise ValueError("the fused residual add writes into the layers' inputs: "
                         "set config.output_hidden_states = False")
    if model.config.hidden_act not in ("silu", "swish"):
        raise ValueError(f"silu_mul needs a SiLU MLP, not {model.config.hidden_act!r}")
    for attention in (m for m in model.modules() if isinstance(m, qwen3.Qwen3Attention)):
        if attention.q_norm.variance_epsilon != attention.k_norm.variance_epsilon:
            raise ValueError("qk_norm_rope takes one eps: q_norm and k_norm differ "
                             f"({attention.q_norm.variance_epsilon} and "
                             f"{attention.k_norm.variance_epsilon})")
    patches = Patches()
    norm = _norm_forward(kernels["rmsnorm"])
    attention = _attention_forward(kernels["rope"])
    layer = _decoder_layer_forward(kernels["fused_add_rmsnorm"])
    mlp = _mlp_forward(kernels["swiglu"])
    for module in model.modules():
        if isinstance(module, qwen3.Qwen3RMSNorm):
            patches.set(module, "forward", MethodType(norm, module), "rms_norm")
        elif isinstance(module, qwen3.Qwen3Attention):
            patches.set(module, "forward", MethodType(attention, module), "qk_norm_rope")
        elif isinstance(module, qwen3.Qwen3DecoderLayer):
            patches.set(module, "forward", MethodType(layer, module), "fused_add_rms_norm")
        elif isinstance(module, qwen3.Qwen3MLP):
            patches.set(module, "forward", MethodType(mlp, module), "silu_mul")
    patches.require("rms_norm", "qk_norm_rope", "fused_add_rms_norm", "silu_mul")
    if fuse_layer_boundaries:
        _fuse_layer_boundaries(model, kernels, patches)
    return patches


def _fuse_layer_boundaries(model, kernels, patches: Patches) -> None:
    """Rebinds every decoder layer to close with a fused add into the norm
    after it (the next layer's input norm, the last one's: the final norm),
    and those norms to take the hand-over."""
    inner = getattr(model, "model", model)
    layers = list(inner.layers[: model.config.num_hidden_layers])
    norms_after = [nxt.input_layernorm for nxt in layers[1:]] + [inner.norm]
    boundary = LayerBoundary()
    fused, rms = kernels["fused_add_rmsnorm"], kernels["rmsnorm"]
    for layer_module, next_norm in zip(layers, norms_after):
        patches.set(layer_module, "forward",
                    MethodType(_decoder_layer_forward(fused, next_norm, boundary), layer_module),
                    "fused_layer_boundary")
        patches.set(next_norm, "forward",
                    MethodType(_boundary_norm_forward(rms, boundary), next_norm),
                    "boundary_norm")
