"""Inside the step: every GPU op's layer and module, and the time of each.

Per step, every GPU op gets a layer (its index; OUTSIDE for the part around the layers:
embedding, final norm, lm_head, sampling) and a module (q_proj, attention, down_proj, ...), from
the best evidence the step has (`SOURCES`, best first):
  nvtx      module ranges around the op's launch call, named by the module's qualified name
            (NVTX or record_function: model.layers.3.mlp.down_proj; Megatron names too);
  names     torch Python frames of modules around the launch call (with_stack: nn.Module:
            DecoderLayer_3 > MLP_3 > Linear_20): the layer is the n-th instance of the class that
            repeats through the step, a Linear is named by its parent and its place among the
            parent's Linear calls;
  shapes    GEMMs named by their K x N against a model config (--model), which projection has
            which shape (shapes.py); the layers come from the repeating pattern, as for position;
  position  the step's kernel sequence aligned with a step of the same rank that has names (an
            eager prefill beside graph-replayed decodes, as vLLM V1 runs): every op takes the
            label of the op it aligns with; ops that align with none, and steps with no such step,
            are cut into layers by the repeating kernel pattern (attention kernels mark each
            layer) and named by their place in the layer ("op 3: linear").
Layer types group layers by their kernel sequence (hybrid attention / linear attention, MoE
every other layer, one wider layer). The names are data: rules/modules.toml. Times int64 ns.
"""
from __future__ import annotations

from .assign import Assignment, assign, of_table
from .position import ANCHOR_WEIGHT, _align, _layer_anchors, _segment
from .rules import NO_STEP, OUTSIDE, SOURCES, path_module, vocab
from .shapes import Projections, name_gemms, projections
from .summary import MIN_COVER, MIN_LAYERS, SLOW, section
from .times import Times, concat, times

__all__ = ["ANCHOR_WEIGHT", "MIN_COVER", "MIN_LAYERS", "NO_STEP", "OUTSIDE", "SLOW", "SOURCES", "Assignment", "Projections", "Times",
           "_align", "_layer_anchors", "_segment", "assign", "concat", "name_gemms", "of_table", "path_module", "projections", "section", "times",
           "vocab"]
