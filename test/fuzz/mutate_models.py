#!/usr/bin/python3
"""A mutation campaign through the CLI (issue 19): onyx-compile must never
die by a signal, hang, or fail without one `error:` line, whatever model it
is given.

Seeds are the ONNX node-suite models (the bundled 1.23 suite unpacked under
build/onnx-node-suite-1.23/node and Debian's 1.12 suite) plus the example
MLP. Each case takes one seed and applies one or more mutations:

  structured (through the onnx protobuf):
    attr-kind     an attribute's value becomes another kind (int, float,
                  string, ints, floats, strings, tensor, graph), with its
                  `type` field changed or left stale
    attr-value    an int attribute becomes 0, -1, huge or INT64_MIN; a float
                  NaN/inf; a list emptied or repeated
    attr-drop     an attribute removed; attr-dup: one duplicated
    input-drop    a node input removed or emptied; input-add: an extra one
    input-rename  an input renamed to an undefined value
    output-drop   a node output removed; output-dup: two nodes define one name
    node-drop     a node removed; node-swap: two nodes swapped (use before
                  definition)
    op-type       the op type replaced by another op's (or nonsense)
    domain        a node's domain changed; opset: the opset version changed
    subgraph      a subgraph emptied or removed
    dims          a value_info/graph input dim made negative, 0 or huge; a
                  dim_param added
    elem-type     an element type changed (also to undefined/string/complex)
    initializer   an initializer's dims/data made inconsistent, or made
                  external with a hostile location/offset
    name          a node/value name given control bytes, newlines, quotes
  bytes (on the serialized model):
    flip          random bytes flipped
    truncate      the file cut at a random length
    splice        a random chunk of another seed inserted

Run for a bounded count; the outcome classes are those of the node-suite
runner: compiled, clean error, crash (signal, or exit without `error:`),
hang (timeout). Crashers are written to --out with the command to reproduce.

  /usr/bin/python3 test/fuzz/mutate_models.py --count 1000 --seed 1
  /usr/bin/python3 test/fuzz/mutate_models.py --count 200 --expect-clean   # CI
"""
import argparse
import concurrent.futures
import copy
import glob
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN_DIR = os.environ.get("ONYX_BIN_DIR", os.path.join(REPO, "build", "bin"))
ONYX_COMPILE = os.path.join(BIN_DIR, "onyx-compile")

SEED_DIRS = [
    os.path.join(REPO, "build", "onnx-node-suite-1.23", "node"),
    "/usr/share/libonnx-testdata/data/node",
]
EXAMPLE = os.path.join(REPO, "examples", "mlp_classifier.onnx")

OP_TYPES = ["Add", "ArgMax", "Flatten", "LRN", "Elu", "Resize", "GridSample",
            "SoftmaxCrossEntropyLoss", "Shape", "Scan", "Loop", "If", "Gather",
            "Reshape", "Slice", "Concat", "NonZero", "Compress", "Unique",
            "TopK", "Range", "ConstantOfShape", "Conv", "MatMul", "Einsum",
            "Split", "Pad", "Cast", "QuantizeLinear", "NoSuchOp", ""]
WEIRD_NAMES = ["a\nerror: forged", "\x1b[31mred\x1b[0m", "'quoted'", "",
               "x" * 5000, "\x00nul", "../../etc", "%41"]


def seeds():
    found = []
    for d in SEED_DIRS:
        found += sorted(glob.glob(os.path.join(d, "*", "model.onnx")))
    if os.path.exists(EXAMPLE):
        found.append(EXAMPLE)
    return found


# -- structured mutations ------------------------------------------------------

def all_graphs(graph):
    yield graph
    for node in graph.node:
        for a in node.attribute:
            if a.HasField("g"):
                yield from all_graphs(a.g)
            for g in a.graphs:
                yield from all_graphs(g)


def all_nodes(model):
    return [(g, n) for g in all_graphs(model.graph) for n in g.node]


def set_attr_kind(rng, a, onnx):
    AP = onnx.AttributeProto
    for field in ("i", "f", "s", "t", "g"):
        a.ClearField(field)
    for field in ("ints", "floats", "strings", "tensors", "graphs"):
        a.ClearField(field)
    kind = rng.choice(["i", "f", "s", "ints", "floats", "strings", "t", "g"])
    types = {"i": AP.INT, "f": AP.FLOAT, "s": AP.STRING, "ints": AP.INTS,
             "floats": AP.FLOATS, "strings": AP.STRINGS, "t": AP.TENSOR, "g": AP.GRAPH}
    if kind == "i":
        a.i = rng.choice([0, 1, -1, 7, 2 ** 62])
    elif kind == "f":
        a.f = rng.choice([0.0, 1.5, -3.0, float("nan"), float("inf")])
    elif kind == "s":
        a.s = rng.choice([b"", b"linear", b"\xff\xfe", b"x" * 300])
    elif kind == "ints":
        a.ints.extend(rng.choice([[], [0], [1, 2, 3], [-1] * 9]))
    elif kind == "floats":
        a.floats.extend(rng.choice([[], [0.5], [float("nan")] * 3]))
    elif kind == "strings":
        a.strings.extend(rng.choice([[], [b"a"], [b"", b"b"]]))
    elif kind == "t":
        a.t.data_type = rng.choice([1, 7, 9, 0, 8, 14])
        a.t.dims.extend(rng.choice([[], [2], [0], [-1]]))
    else:
        a.g.name = "g"
    # The declared type: right, stale, or nonsense.
    r = rng.random()
    if r < 0.6:
        a.type = types[kind]
    elif r < 0.8:
        a.type = rng.choice(list(types.values()))
    else:
        a.type = rng.choice([0, 99])


def mutate_structured(rng, model, others, onnx):
    kinds = ["attr-kind", "attr-value", "attr-drop", "attr-dup", "input-drop",
             "input-add", "input-rename", "output-drop", "output-dup", "node-drop",
             "node-swap", "op-type", "domain", "opset", "subgraph", "dims",
             "elem-type", "initializer", "name"]
    kind = rng.choice(kinds)
    nodes = all_nodes(model)
    if not nodes:
        return "empty"
    graph, node = rng.choice(nodes)
    if kind == "attr-kind" and node.attribute:
        set_attr_kind(rng, rng.choice(node.attribute), onnx)
    elif kind == "attr-value" and node.attribute:
        a = rng.choice(node.attribute)
        if a.type == onnx.AttributeProto.INT:
            a.i = rng.choice([0, -1, 2 ** 63 - 1, -(2 ** 63), 1 << 40])
        elif a.type == onnx.AttributeProto.FLOAT:
            a.f = rng.choice([float("nan"), float("inf"), -float("inf"), 1e38])
        elif a.type == onnx.AttributeProto.INTS:
            vals = list(a.ints)
            a.ClearField("ints")
            a.ints.extend(rng.choice([[], vals * 3, [2 ** 63 - 1], [-(2 ** 63)] * max(1, len(vals))]))
        else:
            set_attr_kind(rng, a, onnx)
    elif kind == "attr-drop" and node.attribute:
        del node.attribute[rng.randrange(len(node.attribute))]
    elif kind == "attr-dup" and node.attribute:
        node.attribute.append(copy.deepcopy(rng.choice(node.attribute)))
    elif kind == "input-drop" and node.input:
        i = rng.randrange(len(node.input))
        if rng.random() < 0.5:
            del node.input[i]
        else:
            node.input[i] = ""
    elif kind == "input-add":
        node.input.append(rng.choice(list(node.input) + ["", "undefined_value"]) if node.input else "x")
    elif kind == "input-rename" and node.input:
        node.input[rng.randrange(len(node.input))] = rng.choice(["nowhere", "", node.output[0] if node.output else "z"])
    elif kind == "output-drop" and node.output:
        del node.output[rng.randrange(len(node.output))]
    elif kind == "output-dup" and len(graph.node) > 1 and node.output:
        other = rng.choice(graph.node)
        if other.output:
            other.output[0] = node.output[0]
    elif kind == "node-drop":
        graph.node.remove(node)
    elif kind == "node-swap" and len(graph.node) > 1:
        i, j = rng.sample(range(len(graph.node)), 2)
        a, b = copy.deepcopy(graph.node[i]), copy.deepcopy(graph.node[j])
        graph.node[i].CopyFrom(b)
        graph.node[j].CopyFrom(a)
    elif kind == "op-type":
        node.op_type = rng.choice(OP_TYPES)
    elif kind == "domain":
        node.domain = rng.choice(["ai.onnx.ml", "com.microsoft", "nonsense", "ai.onnx"])
    elif kind == "opset" and model.opset_import:
        model.opset_import[0].version = rng.choice([0, 1, 6, 7, 11, 28, 29, 1000, -1])
    elif kind == "subgraph":
        for a in node.attribute:
            if a.HasField("g"):
                if rng.random() < 0.5:
                    a.g.ClearField("node")
                    a.g.ClearField("output")
                else:
                    a.ClearField("g")
                break
        else:
            node.op_type = rng.choice(["If", "Loop", "Scan"])
    elif kind == "dims":
        vis = list(graph.input) + list(graph.output) + list(graph.value_info)
        vis = [v for v in vis if v.type.HasField("tensor_type") and v.type.tensor_type.HasField("shape")]
        if vis:
            v = rng.choice(vis)
            dims = v.type.tensor_type.shape.dim
            if dims:
                d = rng.choice(dims)
                if rng.random() < 0.3:
                    d.dim_param = rng.choice(["n", "", "weird name\n"])
                else:
                    d.dim_value = rng.choice([-1, 0, 2 ** 40, 2 ** 62, 1])
            else:
                v.type.tensor_type.shape.dim.add().dim_value = rng.choice([0, 3, -2])
    elif kind == "elem-type":
        vis = list(graph.input) + list(graph.output) + list(graph.value_info)
        vis = [v for v in vis if v.type.HasField("tensor_type")]
        if vis:
            rng.choice(vis).type.tensor_type.elem_type = rng.choice([0, 8, 14, 15, 16, 17, 21, 23, 26, 27, 99])
    elif kind == "initializer":
        inits = list(model.graph.initializer)
        # Constants count too: their `value` tensor.
        tensors = inits + [a.t for _, n in nodes for a in n.attribute if a.HasField("t")]
        if tensors:
            t = rng.choice(tensors)
            r = rng.random()
            if r < 0.3:
                t.dims.append(rng.choice([3, 0, -1, 2 ** 40]))
            elif r < 0.5:
                t.raw_data = t.raw_data[: len(t.raw_data) // 2]
            elif r < 0.6:
                t.data_type = rng.choice([0, 8, 14, 99])
            else:
                t.data_location = onnx.TensorProto.EXTERNAL
                del t.external_data[:]
                for key, value in rng.choice([
                        [("location", "../../../../etc/passwd")],
                        [("location", "/etc/passwd")],
                        [("location", "missing.bin")],
                        [("location", "model.onnx"), ("offset", "abc")],
                        [("location", "model.onnx"), ("length", "-1")],
                        [("location", "model.onnx"), ("offset", "99999999999999999999999")],
                        [("location", "")],
                        []]):
                    e = t.external_data.add()
                    e.key, e.value = key, value
    elif kind == "name":
        target = rng.choice(["node", "input", "output"])
        if target == "node":
            node.name = rng.choice(WEIRD_NAMES)
        elif target == "input" and graph.input:
            old = graph.input[0].name
            new = rng.choice(WEIRD_NAMES)
            graph.input[0].name = new
            for _, n in nodes:
                for i, x in enumerate(n.input):
                    if x == old:
                        n.input[i] = new
        elif graph.output:
            graph.output[0].name = rng.choice(WEIRD_NAMES)
    else:
        return kind + "(no-op)"
    return kind


def mutate_bytes(rng, data, others):
    kind = rng.choice(["flip", "truncate", "splice"])
    b = bytearray(data)
    if not b:
        return bytes(b), kind
    if kind == "flip":
        for _ in range(rng.choice([1, 2, 4, 16])):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        b = b[: rng.randrange(len(b))]
    else:
        other = open(rng.choice(others), "rb").read()
        if other:
            start = rng.randrange(len(other))
            chunk = other[start:start + rng.randrange(1, 64)]
            pos = rng.randrange(len(b))
            b[pos:pos] = chunk
    return bytes(b), kind


def make_case(index, seed, all_seeds, tmp):
    """Writes case `index` to tmp; returns (path, seed path, mutations)."""
    import onnx
    rng = random.Random(seed * 1_000_003 + index)
    src = rng.choice(all_seeds)
    data = open(src, "rb").read()
    mutations = []
    if rng.random() < 0.7:
        model = onnx.ModelProto()
        try:
            model.ParseFromString(data)
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                mutations.append(mutate_structured(rng, model, all_seeds, onnx))
            data = model.SerializeToString()
        except Exception as e:  # a seed onnx cannot handle: bytes then
            mutations.append("parse-failed:%s" % type(e).__name__)
    if rng.random() < 0.35 or not mutations:
        data, kind = mutate_bytes(rng, data, all_seeds)
        mutations.append(kind)
    path = os.path.join(tmp, "case_%06d.onnx" % index)
    with open(path, "wb") as f:
        f.write(data)
    return path, src, mutations


def limit_memory(gb):
    def apply():
        lim = gb << 30
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_case(args, index, all_seeds, tmp):
    path, src, mutations = make_case(index, args.seed, all_seeds, tmp)
    so = path[:-5] + ".so"
    cmd = [ONYX_COMPILE, path, "-o", so] + (["--emit=" + args.emit] if args.emit else [])
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=args.timeout,
                           preexec_fn=limit_memory(args.mem_limit_gb))
        rc, err = p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        rc, err = None, ""
    seconds = time.time() - t0
    error_lines = [l for l in err.splitlines() if l.startswith("error:")]
    if rc is None:
        status = "hang"
    elif rc < 0:
        status = "crash"
    elif rc == 0:
        status = "compiled"
    elif len(error_lines) >= 1:
        status = "error"
    else:
        status = "crash"  # non-zero without an error: line
    result = {"index": index, "seed": os.path.relpath(src, REPO) if src.startswith(REPO) else src,
              "mutations": mutations, "status": status, "rc": rc, "seconds": round(seconds, 3),
              "stderr": err[-2000:]}
    if status == "error" and len(error_lines) > 1:
        result["note"] = "%d error: lines" % len(error_lines)
    if status in ("crash", "hang"):
        os.makedirs(args.out, exist_ok=True)
        keep = os.path.join(args.out, "crash_%d_%06d.onnx" % (args.seed, index))
        shutil.copy(path, keep)
        result["kept"] = keep
        try:
            result["signal"] = signal.Signals(-rc).name if rc is not None and rc < 0 else None
        except ValueError:
            pass
    for f in (path, so):
        try:
            os.remove(f)
        except OSError:
            pass
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--mem-limit-gb", type=int, default=16)
    ap.add_argument("--emit", default="", help="stop early (onyx-compile --emit=...)")
    ap.add_argument("--out", default=os.path.join(REPO, "build", "fuzz-crashers"))
    ap.add_argument("--results", default=os.path.join(REPO, "build", "fuzz_results.json"))
    ap.add_argument("--expect-clean", action="store_true",
                    help="exit 1 when any case crashes or hangs")
    args = ap.parse_args()
    if not os.access(ONYX_COMPILE, os.X_OK):
        print("error: %s is not built" % ONYX_COMPILE, file=sys.stderr)
        return 2
    all_seeds = seeds()
    if not all_seeds:
        print("error: no seed models found (unpack the node suite: test/e2e/node_suite.py --suite current --mode import)", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="onyx-fuzz-")
    counts = {"compiled": 0, "error": 0, "crash": 0, "hang": 0}
    bad = []
    t0 = time.time()
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(run_case, args, i, all_seeds, tmp) for i in range(args.count)]
            for f in concurrent.futures.as_completed(futures):
                r = f.result()
                counts[r["status"]] += 1
                if r["status"] in ("crash", "hang"):
                    bad.append(r)
                    print("%s: case %d (%s; %s) rc=%s %s" % (
                        r["status"].upper(), r["index"], r["seed"], ", ".join(r["mutations"]),
                        r["rc"], r.get("kept", "")), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.time() - t0
    summary = {"count": args.count, "seed": args.seed, "seeds": len(all_seeds),
               "seconds": round(elapsed, 1), "counts": counts, "failures": bad}
    os.makedirs(os.path.dirname(args.results), exist_ok=True)
    with open(args.results, "w") as f:
        json.dump(summary, f, indent=1)
    print("%d cases from %d seeds in %.0f s: %d compiled, %d clean errors, %d crashes, %d hangs" % (
        args.count, len(all_seeds), elapsed, counts["compiled"], counts["error"],
        counts["crash"], counts["hang"]))
    if args.expect_clean and (counts["crash"] or counts["hang"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
