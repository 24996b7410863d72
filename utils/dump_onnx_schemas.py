#!/usr/bin/env python3
#===- dump_onnx_schemas.py - Structural facts of every ONNX operator schema ===#
#
# Writes utils/onnx_schemas.json: for every operator schema of the ai.onnx
# domain that the installed `onnx` package knows, with its whole history
# (every since_version), the structural facts the compiler needs: inputs and
# outputs (name, type string, single/optional/variadic, homogeneity, minimum
# arity), attributes (name, kind, required, default value), type constraints
# and the deprecation flag. No documentation text is kept.
#
# Run it where a current `onnx` exists (the GPU machine has onnx 1.23.1):
#
#   python3 utils/dump_onnx_schemas.py -o utils/onnx_schemas.json
#
# The output is deterministic: schemas sorted by (name, since_version), keys
# sorted. utils/gen_onnx_ops.py reads it.
#===------------------------------------------------------------------------===#
import argparse
import json
import sys

import onnx
from onnx import defs, helper

OPTION = {
    defs.OpSchema.FormalParameterOption.Single: "single",
    defs.OpSchema.FormalParameterOption.Optional: "optional",
    defs.OpSchema.FormalParameterOption.Variadic: "variadic",
}


def attr_kind(t):
    return defs.OpSchema.AttrType(t).name if not isinstance(t, str) else t


def default_value(attr):
    d = attr.default_value
    if d is None or not d.name and d.type == 0:
        return None
    if d.type == onnx.AttributeProto.UNDEFINED:
        return None
    v = helper.get_attribute_value(d)
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, (list, tuple)):
        return [x.decode("utf-8", "replace") if isinstance(x, bytes) else x
                for x in v]
    if isinstance(v, (int, float, str)):
        return v
    return repr(v)


def formal(p):
    out = {
        "name": p.name,
        "type": p.type_str,
        "option": OPTION[p.option],
        "homogeneous": bool(p.is_homogeneous),
        "min_arity": int(p.min_arity),
    }
    diff = getattr(p, "differentiation_category", None)
    return out


def dump_schema(s):
    attrs = []
    for name in sorted(s.attributes):
        a = s.attributes[name]
        kind = a.type.name if hasattr(a.type, "name") else str(a.type)
        entry = {"name": name, "type": kind, "required": bool(a.required)}
        dv = default_value(a)
        if dv is not None:
            entry["default"] = dv
        attrs.append(entry)
    return {
        "name": s.name,
        "domain": s.domain or "ai.onnx",
        "since_version": int(s.since_version),
        "deprecated": bool(s.deprecated),
        "inputs": [formal(p) for p in s.inputs],
        "outputs": [formal(p) for p in s.outputs],
        "min_input": int(s.min_input),
        "max_input": int(s.max_input),
        "min_output": int(s.min_output),
        "max_output": int(s.max_output),
        "attributes": attrs,
        "type_constraints": [
            {"param": c.type_param_str,
             "allowed": sorted(c.allowed_type_strs)}
            for c in s.type_constraints
        ],
        "has_function": bool(getattr(s, "has_function", False)),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", default="utils/onnx_schemas.json")
    args = ap.parse_args()
    schemas = [s for s in defs.get_all_schemas_with_history()
               if s.domain in ("", "ai.onnx")]
    schemas.sort(key=lambda s: (s.name, s.since_version))
    doc = {
        "onnx_version": onnx.__version__,
        "max_opset": int(defs.onnx_opset_version()),
        "schemas": [dump_schema(s) for s in schemas],
    }
    with open(args.output, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print("dump_onnx_schemas: %d schemas (onnx %s, opset %d) -> %s" %
          (len(schemas), onnx.__version__, doc["max_opset"], args.output))


if __name__ == "__main__":
    sys.exit(main())
