"""Our kernels in a transformers Qwen3 model (transformers 5.17), swapped in
per instance and reversibly (kernel_examples.patching): the library's
classes and source are never edited.

- every Qwen3RMSNorm (the layer norms and the final norm) -> rms_norm;
- the decoder layer's `residual + attn` followed by post_attention_layernorm
  -> one fused_add_rms_norm (in place);
- the per-head QK-norms and apply_rotary_pos_emb -> qk_norm_rope on q and k
  in place, in [b, s, h, d] layout (one launch for the four: normalize,
  rotate, q and k);
- the MLP's act_fn(gate) * up -> silu_mul (the projections stay cuBLAS GEMMs).

The decoder layer and attention forwards below are transformers 5.17's,
line for line, except for those swaps. The fused add writes the sum into
the layer's input tensor (the previous layer's output, or the embeddings),
so the patch refuses a model configured to return hidden states."""

from types import MethodType
from typing import Dict

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
        rope.qk_norm_rope(query_states, key_states, self.q_norm.weight, self.k_norm.weight,
                          cos, sin, self.q_norm.variance_epsilon, False, "bshd")
        query_states = query_states.transpose(1, 2)
        key_states = key_states.transpose(1, 2)

        if past_key_values is not None:
            key_states, value_states = past_key_values.update(key_states, value_states, self.layer_idx)

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


def _decoder_layer_forward(fused):
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
        return residual + hidden_states

    return forward


def _mlp_forward(swiglu):
    def forward(self, x):
        return self.down_proj(swiglu.silu_mul(self.gate_proj(x), self.up_proj(x)))

    return forward


def apply(model, kernels: Dict[str, object]) -> Patches:
    """Swaps the four kernels into `model` (a Qwen3ForCausalLM or Qwen3Model).
    `kernels`: the loaded kernel modules keyed by template name ("rmsnorm",
    "fused_add_rmsnorm", "rope", "swiglu"). Returns the Patches; undo()
    restores the model."""
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
    return patches
