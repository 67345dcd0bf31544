"""Build the all-MiniLM-L6-v2 sentence-embedding ONNX graph from safetensors tensors.

Pure function of the weights: ``build_model(tensors, config) -> onnx.ModelProto``
(opset 17, IR 8 so onnxruntime >= 1.14 loads it). The graph is

    input_ids, attention_mask (int64, [batch, seq])
      -> BERT embeddings (word + position + token-type 0) -> LayerNorm
      -> 6 x [self-attention (additive key mask) -> Add&LayerNorm -> GELU(erf) FFN -> Add&LayerNorm]
      -> mean pooling over attention_mask -> L2 normalisation
      -> sentence_embedding (float32, [batch, 384])

Position ids are produced by *slicing* the position table to the sequence length
(building them with ``Range`` crashed onnxruntime's optimiser on our machines).
Bump :data:`GRAPH_VERSION` whenever the graph changes: it is part of the cache key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnx

GRAPH_VERSION = 1
OPSET = 17
IR_VERSION = 8
INPUTS = ("input_ids", "attention_mask")
OUTPUT = "sentence_embedding"


def build_model(tensors: dict[str, np.ndarray], config: dict) -> onnx.ModelProto:
    from onnx import TensorProto, helper, numpy_helper

    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    eps = float(config["layer_norm_eps"])
    head_dim = hidden // heads

    inits: list = []
    nodes: list = []
    counter = [0]

    def uniq(prefix: str) -> str:
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], prefix: str | None = None, **attrs) -> str:
        out = uniq(prefix or op.lower())
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def f32(name: str) -> np.ndarray:
        return np.asarray(tensors[name], dtype=np.float32)

    def linear(x: str, prefix: str) -> str:
        w = const(prefix + ".weight_T", f32(prefix + ".weight").T)  # [in, out]
        b = const(prefix + ".bias", f32(prefix + ".bias"))
        return node("Add", [node("MatMul", [x, w]), b])

    def layer_norm(x: str, prefix: str) -> str:
        g = const(prefix + ".weight", f32(prefix + ".weight"))
        b = const(prefix + ".bias", f32(prefix + ".bias"))
        return node("LayerNormalization", [x, g, b], axis=-1, epsilon=eps)

    # shared constants
    c_one = const("c_one", np.array(1.0, np.float32))
    c_half = const("c_half", np.array(0.5, np.float32))
    c_sqrt2 = const("c_sqrt2", np.array(np.sqrt(2.0), np.float32))
    c_neg = const("c_mask_neg", np.array(-1e9, np.float32))
    c_scale = const("c_scale", np.array(1.0 / np.sqrt(head_dim), np.float32))
    c_eps_count = const("c_eps_count", np.array(1e-9, np.float32))
    c_eps_norm = const("c_eps_norm", np.array(1e-12, np.float32))
    c_axes1 = const("c_axes1", np.array([1], np.int64))
    c_axes2 = const("c_axes2", np.array([2], np.int64))
    c_axes12 = const("c_axes12", np.array([1, 2], np.int64))
    c_zero1 = const("c_zero1", np.array([0], np.int64))
    c_one1 = const("c_one1", np.array([1], np.int64))
    c_two1 = const("c_two1", np.array([2], np.int64))
    c_split = const("c_split_shape", np.array([0, 0, heads, head_dim], np.int64))
    c_merge = const("c_merge_shape", np.array([0, 0, hidden], np.int64))

    # --- embeddings: word + position (sliced to seq len) + token type 0 (folded in) --------
    word = const("embeddings.word_embeddings.weight", f32("embeddings.word_embeddings.weight"))
    pos_tt = const(
        "embeddings.position_plus_type0",
        f32("embeddings.position_embeddings.weight")
        + f32("embeddings.token_type_embeddings.weight")[0][None, :],
    )
    shape = node("Shape", ["input_ids"])
    seq_len = node("Slice", [shape, c_one1, c_two1])  # [seq]
    pos = node("Slice", [pos_tt, c_zero1, seq_len, c_zero1])  # [seq, hidden]
    x = node("Add", [node("Gather", [word, "input_ids"], axis=0), pos])
    x = layer_norm(x, "embeddings.LayerNorm")

    # --- additive attention mask over keys: [batch, 1, 1, seq] ----------------------------
    maskf = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    mask_bias = node("Unsqueeze", [node("Mul", [node("Sub", [c_one, maskf]), c_neg]), c_axes12])

    # --- encoder ------------------------------------------------------------------------
    for i in range(layers):
        p = f"encoder.layer.{i}."
        q = node("Transpose", [node("Reshape", [linear(x, p + "attention.self.query"), c_split])],
                 perm=[0, 2, 1, 3])
        k_t = node("Transpose", [node("Reshape", [linear(x, p + "attention.self.key"), c_split])],
                   perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [linear(x, p + "attention.self.value"), c_split])],
                 perm=[0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k_t]), c_scale]), mask_bias])
        probs = node("Softmax", [scores], axis=-1)
        ctx = node("Reshape", [node("Transpose", [node("MatMul", [probs, v])], perm=[0, 2, 1, 3]),
                               c_merge])
        attn = linear(ctx, p + "attention.output.dense")
        x = layer_norm(node("Add", [attn, x]), p + "attention.output.LayerNorm")
        h = linear(x, p + "intermediate.dense")
        erf = node("Erf", [node("Div", [h, c_sqrt2])])
        h = node("Mul", [node("Mul", [h, node("Add", [erf, c_one])]), c_half])
        out = linear(h, p + "output.dense")
        x = layer_norm(node("Add", [out, x]), p + "output.LayerNorm")

    # --- mean pooling (mask aware) + L2 normalisation -----------------------------------
    mask3 = node("Unsqueeze", [maskf, c_axes2])  # [batch, seq, 1]
    summed = node("ReduceSum", [node("Mul", [x, mask3]), c_axes1], keepdims=0)
    count = node("Max", [node("ReduceSum", [mask3, c_axes1], keepdims=0), c_eps_count])
    pooled = node("Div", [summed, count])
    norm = node("Max", [node("ReduceL2", [pooled], axes=[1], keepdims=1), c_eps_norm])
    nodes.append(helper.make_node("Div", [pooled, norm], [OUTPUT], name="l2_normalize"))

    graph = helper.make_graph(
        nodes,
        "all-MiniLM-L6-v2-sentence-embedding",
        [
            helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])
            for name in INPUTS
        ],
        [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", hidden])],
        initializer=inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        ir_version=IR_VERSION,
        producer_name="kgmem",
        doc_string="all-MiniLM-L6-v2 + mean pooling + L2 normalisation, built by kgmem",
    )
    return model
