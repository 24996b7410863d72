#!/usr/bin/env python3
"""Exports the dynamo test set: small random-weight models of the families
users export today (HF transformers encoders, decoders and vision
transformers; timm and torchvision CNNs), each with PyTorch 2.x's default
exporter (torch.onnx.export(..., dynamo=True)), symbolic batch and
sequence (or batch and image size), plus reference outputs computed by
PyTorch at three shapes.

Run on the GPU machine (torch 2.11, transformers 5.17, timm 1.0.29,
onnx 1.23.1; the export itself runs on the CPU):

    python3 scripts/gpu/export_dynamo_models.py OUTDIR

Writes OUTDIR/<model>.onnx and OUTDIR/<model>.npz (arrays in_K_S / out_K_S
for shape S and input/output K) and OUTDIR/manifest.json (per model: the
shapes, the exporter's opset, the ops, the ORT-vs-PyTorch error when
onnxruntime is there). Weights come from torch.manual_seed(0), inputs from
torch.manual_seed(1): a model is small enough (0.2-1.3 MB, tv_squeezenet 3 MB)
to travel as test data with its weights. test/e2e/dynamo_models/ holds this
script's output but for tv_squeezenet, tv_shufflenet (its export is wrong);
its README.md says why.
"""
import json
import os
import sys
import traceback

import numpy as np
import torch

OUT = sys.argv[1] if len(sys.argv) > 1 else "dynamo_models"
os.makedirs(OUT, exist_ok=True)
Dim = torch.export.Dim


class Wrap(torch.nn.Module):
    """forward(x) -> one tensor, so the exporter sees one input."""

    def __init__(self, model, kind):
        super().__init__()
        self.m = model
        self.kind = kind

    def forward(self, x):
        if self.kind == "text":
            out = self.m(input_ids=x, use_cache=False) if hasattr(
                self.m.config, "use_cache") else self.m(input_ids=x)
        elif self.kind == "pixels":
            out = self.m(pixel_values=x)
        else:
            return self.m(x)
        if hasattr(out, "logits") and out.logits is not None:
            return out.logits
        return out.last_hidden_state


def hf(name, cfg_cls, model_cls, **cfg):
    def build():
        import transformers
        c = getattr(transformers, cfg_cls)(**cfg)
        c._attn_implementation = "eager"
        try:
            c.attn_implementation = "eager"
        except Exception:
            pass
        m = getattr(transformers, model_cls)(c)
        return Wrap(m, "pixels" if "image_size" in cfg else "text")
    return build


def text_spec(vocab):
    example = torch.randint(0, vocab, (2, 8))
    dyn = {"x": {0: Dim("batch", min=1, max=64), 1: Dim("seq", min=1, max=48)}}
    shapes = [(1, 1), (2, 8), (3, 17)]
    return example, dyn, shapes


def image_spec(size=32, dynamic_hw=True):
    example = torch.randn(2, 3, size, size)
    if dynamic_hw:
        dyn = {"x": {0: Dim("batch", min=1, max=64),
                     2: Dim("height", min=16, max=512),
                     3: Dim("width", min=16, max=512)}}
        shapes = [(1, 3, size, size), (2, 3, size + 16, size + 16),
                  (3, 3, size + 32, size)]
    else:
        dyn = {"x": {0: Dim("batch", min=1, max=64)}}
        shapes = [(1, 3, size, size), (2, 3, size, size), (5, 3, size, size)]
    return example, dyn, shapes


TEXT = dict(vocab_size=100)
MODELS = {
    "hf_bert": (hf("hf_bert", "BertConfig", "BertModel", vocab_size=100,
                   hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                   intermediate_size=64, max_position_embeddings=64), "text"),
    "hf_roberta": (hf("hf_roberta", "RobertaConfig", "RobertaModel",
                      vocab_size=100, hidden_size=32, num_hidden_layers=2,
                      num_attention_heads=4, intermediate_size=64,
                      max_position_embeddings=80), "text"),
    "hf_distilbert": (hf("hf_distilbert", "DistilBertConfig",
                         "DistilBertModel", vocab_size=100, dim=32, n_layers=2,
                         n_heads=4, hidden_dim=64,
                         max_position_embeddings=64), "text"),
    "hf_gpt2": (hf("hf_gpt2", "GPT2Config", "GPT2Model", vocab_size=100,
                   n_embd=32, n_layer=2, n_head=4, n_positions=64), "text"),
    "hf_llama": (hf("hf_llama", "LlamaConfig", "LlamaForCausalLM",
                    vocab_size=100, hidden_size=32, intermediate_size=64,
                    num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, max_position_embeddings=64), "text"),
    "hf_qwen2": (hf("hf_qwen2", "Qwen2Config", "Qwen2ForCausalLM",
                    vocab_size=100, hidden_size=32, intermediate_size=64,
                    num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, max_position_embeddings=64), "text"),
    "hf_t5_encoder": (hf("hf_t5_encoder", "T5Config", "T5EncoderModel",
                         vocab_size=100, d_model=32, d_kv=8, d_ff=64,
                         num_layers=2, num_heads=4), "text"),
    "hf_vit": (hf("hf_vit", "ViTConfig", "ViTModel", image_size=32,
                  patch_size=8, num_channels=3, hidden_size=32,
                  num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=64), "image_fixed"),
}


def timm_resnet():
    from timm.models.resnet import BasicBlock, ResNet
    return ResNet(block=BasicBlock, layers=[1, 1, 1, 1], num_classes=10,
                  stem_width=8, channels=(8, 16, 32, 64))


def timm_efficientnet():
    from timm.models.efficientnet import _gen_efficientnet
    return _gen_efficientnet("efficientnet_b0", channel_multiplier=0.25,
                             depth_multiplier=0.25, pretrained=False,
                             num_classes=10)


def timm_convnext():
    from timm.models.convnext import ConvNeXt
    return ConvNeXt(depths=(1, 1, 1, 1), dims=(8, 16, 32, 64), num_classes=10)


def timm_mobilenetv3():
    from timm.models.mobilenetv3 import _gen_mobilenet_v3
    return _gen_mobilenet_v3("mobilenetv3_small_100", channel_multiplier=0.25,
                             pretrained=False, num_classes=10)


def timm_regnet():
    # w0=8, wa=14, wm=2 over depth 4 quantizes to four stages of widths
    # 8, 16, 32, 64 (timm asserts four; w0=8, wa=8 gave three).
    from timm.models.regnet import RegNet, RegNetCfg
    return RegNet(RegNetCfg(w0=8, wa=14.0, wm=2.0, group_size=8, depth=4),
                  num_classes=10)


def tv_googlenet():
    # torchvision's GoogLeNet graph (four-branch Inception blocks, ceil-mode
    # max pooling) at 1/8 of every width but the image's 3 channels.
    from torchvision.models.googlenet import BasicConv2d, GoogLeNet, Inception, InceptionAux

    def s(c):
        return c if c == 3 else max(1, c // 8)

    def conv(i, o, **kw):
        return BasicConv2d(s(i), s(o), **kw)

    def inception(i, *ch, **kw):
        return Inception(s(i), *[s(c) for c in ch])

    # Convolutions He-initialized: with torchvision's init (normal, std 0.01)
    # or PyTorch's default the activations shrink layer by layer and the
    # output was fc's bias whatever the input.
    m = GoogLeNet(num_classes=10, aux_logits=False, init_weights=False,
                  blocks=[conv, inception, InceptionAux])
    m.fc = torch.nn.Linear(s(1024), 10)
    for mod in m.modules():
        if isinstance(mod, torch.nn.Conv2d):
            torch.nn.init.kaiming_normal_(mod.weight, nonlinearity="relu")
    return m


def timm_vit():
    from timm.models.vision_transformer import VisionTransformer
    return VisionTransformer(img_size=32, patch_size=8, embed_dim=32, depth=2,
                             num_heads=4, num_classes=10)


def tv_mobilenetv3():
    from torchvision.models.mobilenetv3 import MobileNetV3, _mobilenet_v3_conf
    setting, last = _mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.25)
    return MobileNetV3(setting, last, num_classes=10)


def tv_shufflenet():
    from torchvision.models import ShuffleNetV2
    return ShuffleNetV2([1, 1, 1], [8, 16, 32, 64, 128], num_classes=10)


def tv_squeezenet():
    from torchvision.models import squeezenet1_1
    return squeezenet1_1(num_classes=10)


for name, fn, hw in [("timm_resnet", timm_resnet, True),
                     ("timm_efficientnet", timm_efficientnet, True),
                     ("timm_convnext", timm_convnext, True),
                     ("timm_mobilenetv3", timm_mobilenetv3, True),
                     ("timm_regnet", timm_regnet, True),
                     ("timm_vit", timm_vit, False),
                     ("tv_mobilenetv3", tv_mobilenetv3, True),
                     ("tv_googlenet", tv_googlenet, True),
                     ("tv_shufflenet", tv_shufflenet, True),
                     ("tv_squeezenet", tv_squeezenet, True)]:
    MODELS[name] = ((lambda f: (lambda: Wrap(f(), "plain")))(fn),
                    "image" if hw else "image_fixed")

only = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else None
manifest = {}
for name, (build, kind) in MODELS.items():
    if only and name not in only:
        continue
    entry = {}
    try:
        torch.manual_seed(0)
        model = build().eval()
        if kind == "text":
            example, dyn, shapes = text_spec(100)
        else:
            example, dyn, shapes = image_spec(32, kind == "image")
        path = os.path.join(OUT, name + ".onnx")
        with torch.no_grad():
            prog = None
            try:
                prog = torch.onnx.export(model, (example,), dynamic_shapes=dyn,
                                         dynamo=True, external_data=False)
            except Exception as e:
                if kind != "image":
                    raise
                entry["hw_static_reason"] = str(e).splitlines()[0][:300]
                example, dyn, shapes = image_spec(32, False)
                prog = torch.onnx.export(model, (example,), dynamic_shapes=dyn,
                                         dynamo=True, external_data=False)
            prog.save(path, external_data=False)
            arrays = {}
            torch.manual_seed(1)
            for s, shape in enumerate(shapes):
                if kind == "text":
                    x = torch.randint(0, 100, shape)
                else:
                    x = torch.randn(*shape)
                y = model(x)
                arrays["in_0_%d" % s] = x.numpy()
                arrays["out_0_%d" % s] = y.detach().numpy()
            np.savez_compressed(os.path.join(OUT, name + ".npz"), **arrays)
        import onnx
        m = onnx.load(path)
        entry["opset"] = [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")]
        entry["ops"] = sorted({n.op_type for n in m.graph.node})
        entry["shapes"] = [list(s) for s in shapes]
        entry["bytes"] = os.path.getsize(path)
        entry["inputs"] = [i.name for i in m.graph.input]
        try:
            import onnxruntime as ort
            sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            errs = []
            for s in range(len(shapes)):
                x = arrays["in_0_%d" % s]
                ref = arrays["out_0_%d" % s].astype(np.float64)
                y = sess.run(None, {sess.get_inputs()[0].name: x})[0]
                errs.append(float(np.linalg.norm(y - ref) / max(np.linalg.norm(ref), 1e-30)))
            entry["ort_rel_err"] = errs
        except Exception as e:
            entry["ort_error"] = str(e).splitlines()[0][:300]
        entry["status"] = "ok"
    except Exception as e:
        entry["status"] = "failed"
        entry["error"] = traceback.format_exc()[-1500:]
    manifest[name] = entry
    print(name, entry.get("status"), entry.get("opset"), entry.get("bytes"),
          entry.get("ort_rel_err", entry.get("ort_error", entry.get("error", "")[-300:])),
          flush=True)

with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1, sort_keys=True)
