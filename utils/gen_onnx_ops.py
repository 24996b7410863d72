#!/usr/bin/python3
#===- gen_onnx_ops.py - Generate the onnx dialect ODS from ONNX schemas ----===#
#
# Reads utils/onnx_schemas.json (the structural facts of every ai.onnx
# schema with its whole history, dumped from a current `onnx` package by
# utils/dump_onnx_schemas.py) and writes
#
#   * include/onyx/Dialect/ONNX/ONNXOps.td: one ODS op per ai.onnx operator,
#     in the form of its newest schema;
#   * lib/Import/ONNXSchemaTable.inc: every version of every operator, the
#     table the importer resolves nodes with (lib/Import/SchemaRegistry.h).
#
# No `onnx` package is needed; any Python 3 runs it, from anywhere:
#
#   python3 utils/gen_onnx_ops.py            # rewrite both files
#   python3 utils/gen_onnx_ops.py --check    # exit 1 if either is stale
#
# The output is deterministic (ops sorted by name, no timestamps), so a diff
# after a new schema dump shows exactly what changed.
#
# The conventions (see docs/onnx-dialect.md):
#   * operands/results in schema order, named after the schema's formal
#     parameters; a required one is `AnyTensor` (or the sequence/optional
#     type the schema asks for), an optional one is always present and may
#     be a `none` value (from `onnx.NoValue`), a variadic one is last;
#   * attributes keep their ONNX names; INT->I64, FLOAT->F32, STRING->Str,
#     INTS/FLOATS/STRINGS->arrays, TENSOR->ElementsAttr, TYPE_PROTO->TypeAttr,
#     others AnyAttr; schema defaults become DefaultValuedAttr;
#   * GRAPH attributes become single-block regions named after the attribute,
#     terminated by `onnx.Yield`;
#   * every op records its ONNX since_version as `onnxSinceVersion`.
#
#===------------------------------------------------------------------------===#

import argparse
import os
import re
import struct
import sys

import json

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUTPUT = os.path.join(REPO_ROOT, "include", "onyx", "Dialect", "ONNX",
                              "ONNXOps.td")
DEFAULT_TABLE = os.path.join(REPO_ROOT, "lib", "Import", "ONNXSchemaTable.inc")
DEFAULT_SCHEMAS = os.path.join(REPO_ROOT, "utils", "onnx_schemas.json")


class AttrType:
    """Attribute kinds, as spelled in the schema dump."""
    FLOAT, INT, STRING, TENSOR, GRAPH = "FLOAT", "INT", "STRING", "TENSOR", "GRAPH"
    FLOATS, INTS, STRINGS, TENSORS = "FLOATS", "INTS", "STRINGS", "TENSORS"
    GRAPHS, SPARSE_TENSOR, SPARSE_TENSORS = "GRAPHS", "SPARSE_TENSOR", "SPARSE_TENSORS"
    TYPE_PROTO, TYPE_PROTOS = "TYPE_PROTO", "TYPE_PROTOS"


class FormalOption:
    Single, Optional, Variadic = "single", "optional", "variadic"


class Formal:
    def __init__(self, d):
        self.name = d["name"]
        self.typeStr = d["type"]
        self.option = d["option"]
        self.homogeneous = d["homogeneous"]
        self.min_arity = d["min_arity"]


class Attr:
    def __init__(self, d):
        self.name = d["name"]
        self.type = d["type"]
        self.required = d["required"]
        self.has_default = "default" in d
        self.default = d.get("default")


class Constraint:
    def __init__(self, d):
        self.type_param_str = d["param"]
        self.allowed_type_strs = d["allowed"]


class Schema:
    """One operator version of the schema dump."""

    def __init__(self, d):
        self.name = d["name"]
        self.domain = d["domain"]
        self.since_version = d["since_version"]
        self.deprecated = d["deprecated"]
        self.inputs = [Formal(x) for x in d["inputs"]]
        self.outputs = [Formal(x) for x in d["outputs"]]
        self.attributes = {a["name"]: Attr(a) for a in d["attributes"]}
        self.type_constraints = [Constraint(c) for c in d["type_constraints"]]


def load_schemas(path):
    with open(path) as f:
        doc = json.load(f)
    return doc, [Schema(d) for d in doc["schemas"]
                 if d["domain"] in ("", "ai.onnx")]

# Region order where it matters (the schema's attribute map is unordered and
# alphabetical order would put If's else_branch first).
REGION_ORDER = {"If": ["then_branch", "else_branch"]}

# Names defined by hand in ONNXExtraOps.td; a schema op with the same name
# would clash.
HAND_WRITTEN_OPS = {"NoValue", "Yield", "DimGroup"}

CXX_KEYWORDS = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
    "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
    "char32_t", "class", "compl", "concept", "const", "consteval",
    "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
    "float", "for", "friend", "goto", "if", "inline", "int", "long",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
    "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "return", "short", "signed", "sizeof",
    "static", "static_assert", "static_cast", "struct", "switch", "template",
    "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "while", "xor", "xor_eq",
    # Names the ODS-generated builders use for their own parameters.
    "odsBuilder", "odsState",
}

# Accessors that every op class already has (OpState, Op<> and the traits ODS
# attaches to a generated op: OneResult, OneTypedResult, ZeroRegions, ...).
# An ODS argument whose generated getter lands on one of these would hide it.
RESERVED_GETTERS = {
    "getOperation", "getLoc", "getContext", "getType", "getResult",
    "getResults", "getOperands", "getOperand", "getAttributes", "getAttr",
    "getProperties", "getRegion", "getRegions", "getNumOperands",
    "getNumResults", "getNumRegions", "getOperationName", "getAttributeNames",
    "getInherentAttr", "getODSOperands", "getODSResults", "getName",
    "getParentOp", "getBlock", "getResultTypes", "getOperandTypes",
}


def camel(name):
    """ODS getter suffix: snake_case -> CamelCase, first letter upper."""
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p)


def getter(name):
    return "get" + camel(name)


def sanitize(name):
    """A schema formal parameter name as a valid ODS/C++ identifier."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not ident or ident[0].isdigit() or ident[0] == "_":
        ident = "v" + ident
    if ident in CXX_KEYWORDS:
        ident += "_"
    return ident


def td_string(text):
    """A TableGen "..." string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def td_code(text):
    """A TableGen [{...}] code block body; `}]` cannot appear inside one."""
    return text.replace("}]", "} ]")


def f32_literal(value):
    """Shortest decimal literal that rounds to the same float32 as `value`."""
    bits = struct.pack("<f", value)
    for digits in range(1, 18):
        text = "%.*g" % (digits, value)
        try:
            if struct.pack("<f", float(text)) == bits:
                break
        except OverflowError:  # rounded past FLT_MAX: needs more digits
            continue
    if not re.search(r"[.eEn]", text):  # make it a floating literal in C++
        text += ".0"
    return text


def cxx_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def summary_of(schema):
    return "ONNX %s operation" % schema.name


def description_of(schema):
    head = "ONNX `%s`, opset %d (ai.onnx)%s." % (
        schema.name, schema.since_version,
        ", deprecated" if schema.deprecated else "")
    return td_code("    " + head)


# ---------------------------------------------------------------------------
# Types of operands and results.
# ---------------------------------------------------------------------------

KIND_CONSTRAINT = {
    "tensor": "AnyTensor",
    "seq": "ONNX_SeqType",
    "optional": "ONNX_OptType",
}


def value_constraint(schema, param, warnings):
    constraints = {t.type_param_str: list(t.allowed_type_strs)
                   for t in schema.type_constraints}
    allowed = constraints.get(param.typeStr, [param.typeStr])
    kinds = []
    for t in allowed:
        kind = t.split("(")[0]
        if kind not in kinds:
            kinds.append(kind)
    parts = []
    for kind in ("tensor", "seq", "optional"):
        if kind in kinds:
            parts.append(KIND_CONSTRAINT[kind])
    unknown = [k for k in kinds if k not in KIND_CONSTRAINT]
    if unknown:
        warnings.append("%s.%s: type kinds %s have no MLIR type; using AnyType"
                        % (schema.name, param.name, unknown))
        parts = ["AnyType"]
    if param.option == FormalOption.Optional:
        if parts == ["AnyTensor"]:
            return "ONNX_TensorOrNone"
        parts.append("NoneType")
    if len(parts) == 1:
        base = parts[0]
    else:
        base = "AnyTypeOf<[%s]>" % ", ".join(parts)
    if param.option == FormalOption.Variadic:
        return "Variadic<%s>" % base
    return base


# ---------------------------------------------------------------------------
# Attributes.
# ---------------------------------------------------------------------------

ATTR_BASE = {
    AttrType.INT: "ONNX_I64Attr",
    AttrType.FLOAT: "F32Attr",
    AttrType.STRING: "StrAttr",
    AttrType.INTS: "I64ArrayAttr",
    AttrType.FLOATS: "F32ArrayAttr",
    AttrType.STRINGS: "StrArrayAttr",
    AttrType.TENSOR: "ElementsAttr",
    AttrType.SPARSE_TENSOR: "AnyAttr",
    AttrType.TYPE_PROTO: "TypeAttr",
    AttrType.TENSORS: "AnyAttr",
    AttrType.GRAPHS: "AnyAttr",
    AttrType.TYPE_PROTOS: "AnyAttr",
}


def default_literal(attr):
    """The C++ default value for DefaultValuedAttr, or None if none/unsupported."""
    if not attr.has_default:
        return None
    value = attr.default
    t = attr.type
    if t == AttrType.INT:
        return str(int(value))
    if t == AttrType.FLOAT:
        return f32_literal(value)
    if t == AttrType.STRING:
        return cxx_string(value)
    if t == AttrType.INTS:
        return "{" + ", ".join(str(int(v)) for v in value) + "}"
    if t == AttrType.FLOATS:
        return "{" + ", ".join(f32_literal(v) + "f" for v in value) + "}"
    if t == AttrType.STRINGS:
        return "{" + ", ".join(cxx_string(v) for v in value) + "}"
    return None


def attr_constraint(schema, attr, warnings):
    base = ATTR_BASE[attr.type]
    if attr.required:
        return base
    default = default_literal(attr)
    if default is not None:
        return "DefaultValuedAttr<%s, %s>" % (base, td_string(default))
    if attr.has_default:
        warnings.append("%s.%s: default of type %s not representable; "
                        "emitted as OptionalAttr" % (schema.name, attr.name,
                                                     attr.type))
    return "OptionalAttr<%s>" % base


# ---------------------------------------------------------------------------
# One op.
# ---------------------------------------------------------------------------


class OpGen:
    def __init__(self, schema, report):
        self.s = schema
        self.report = report
        self.warnings = report["warnings"]

    def generate(self):
        s = self.s
        attrs = [a for _, a in sorted(s.attributes.items())]
        graph_attrs = [a for a in attrs if a.type == AttrType.GRAPH]
        order = REGION_ORDER.get(s.name)
        if order:
            assert sorted(order) == sorted(a.name for a in graph_attrs), s.name
            graph_attrs.sort(key=lambda a: order.index(a.name))
        plain_attrs = [a for a in attrs if a.type != AttrType.GRAPH]

        # Attribute and region names are the ONNX names, verbatim.
        taken = {}  # getter name -> what owns it
        for a in attrs:
            if sanitize(a.name) != a.name:
                raise SystemExit("error: %s attribute '%s' is not a valid ODS "
                                 "identifier; extend gen_onnx_ops.py"
                                 % (s.name, a.name))
            taken[getter(a.name)] = a.name

        n_results = len(s.outputs)
        single_result = (n_results == 1 and
                         s.outputs[0].option != FormalOption.Variadic)

        # Attributes that cannot be ODS arguments: their getter would hide an
        # accessor the op class already has (e.g. `type` vs the result-type
        # getter of a one-result op). They stay in the IR under their ONNX
        # name as discardable attributes with hand-written accessors.
        manual_attrs = []
        for a in list(plain_attrs):
            g = getter(a.name)
            clash = g in RESERVED_GETTERS
            if g == "getType" and not single_result:
                clash = False
            if clash:
                manual_attrs.append(a)
                plain_attrs.remove(a)
                self.report["manual_attrs"].append(
                    "%s.%s (ODS getter %s() would hide the op's own %s())"
                    % (s.name, a.name, g, g))

        def unique(name, suffix, kind):
            ident = sanitize(name)
            while getter(ident) in taken or getter(ident) in RESERVED_GETTERS:
                new = ident + suffix
                self.report["renamed"].append("%s %s.%s -> %s" %
                                              (kind, s.name, name, new))
                ident = new
            return ident

        # Results first claim names against attributes, then operands against
        # both (so an input and an output both called `X` become X_in / X).
        result_names = []
        for p in s.outputs:
            ident = unique(p.name, "_out", "result")
            taken[getter(ident)] = ident
            result_names.append(ident)
        operand_names = []
        for p in s.inputs:
            ident = unique(p.name, "_in", "operand")
            taken[getter(ident)] = ident
            operand_names.append(ident)

        variadic_in = sum(p.option == FormalOption.Variadic for p in s.inputs)
        variadic_out = sum(p.option == FormalOption.Variadic for p in s.outputs)
        traits = []
        if variadic_in > 1:
            traits.append("AttrSizedOperandSegments")
            self.report["segments"].append(s.name + " (operands)")
        if variadic_out > 1:
            traits.append("AttrSizedResultSegments")
            self.report["segments"].append(s.name + " (results)")

        args = []
        for p, name in zip(s.inputs, operand_names):
            args.append("%s:$%s" % (value_constraint(s, p, self.warnings), name))
        for a in plain_attrs:
            args.append("%s:$%s" % (attr_constraint(s, a, self.warnings),
                                    a.name))
        results = []
        for p, name in zip(s.outputs, result_names):
            results.append("%s:$%s" % (value_constraint(s, p, self.warnings),
                                       name))
        regions = ["SizedRegion<1>:$%s" % a.name for a in graph_attrs]

        out = []
        trait_list = (", [%s]" % ", ".join(traits)) if traits else ""
        out.append('def ONNX%sOp : ONNX_Op<"%s"%s> {' % (s.name, s.name,
                                                          trait_list))
        out.append("  let summary = %s;" % td_string(summary_of(s)))
        out.append("  let description = [{\n%s\n  }];" % description_of(s))
        out.append(self.dag("arguments", "ins", args))
        out.append(self.dag("results", "outs", results))
        if regions:
            out.append(self.dag("regions", "region", regions))

        decl = ["    static constexpr int onnxSinceVersion = %d;"
                % s.since_version]
        defs_ = []
        for a in manual_attrs:
            decl += self.manual_attr_decl(a)
            defs_ += self.manual_attr_verify(a)
        out.append("  let extraClassDeclaration = [{\n%s\n  }];"
                   % "\n".join(decl))
        if defs_:
            out.append("  let hasVerifier = 1;")
            out.append("  let extraClassDefinition = [{\n%s\n  }];"
                       % "\n".join(defs_))
        out.append("}")
        return "\n".join(out)

    @staticmethod
    def dag(field, op, items):
        if not items:
            return "  let %s = (%s);" % (field, op)
        if len(items) == 1 and len(items[0]) < 60:
            return "  let %s = (%s %s);" % (field, op, items[0])
        body = ",\n".join("    " + i for i in items)
        return "  let %s = (%s\n%s);" % (field, op, body)

    def manual_attr_decl(self, a):
        base = ATTR_BASE[a.type]
        storage = {"TypeAttr": "::mlir::TypeAttr",
                   "ElementsAttr": "::mlir::ElementsAttr",
                   "StrAttr": "::mlir::StringAttr",
                   "F32Attr": "::mlir::FloatAttr",
                   "ONNX_I64Attr": "::mlir::IntegerAttr",
                   }.get(base, "::mlir::Attribute")
        c = camel(a.name)
        return [
            "    // ONNX attribute '%s' is kept out of ODS (its getter would"
            % a.name,
            "    // hide %s()); it lives in the discardable attributes under"
            % getter(a.name),
            "    // its ONNX name and is checked by verify().",
            "    static ::llvm::StringRef get%sOnnxAttrName() { return \"%s\"; }"
            % (c, a.name),
            "    %s get%sOnnxAttr() {" % (storage, c),
            "      return (*this)->getAttrOfType<%s>(\"%s\");" % (storage,
                                                               a.name),
            "    }",
            "    void set%sOnnxAttr(%s value) {" % (c, storage),
            "      (*this)->setAttr(\"%s\", value);" % a.name,
            "    }",
        ]

    def manual_attr_verify(self, a):
        storage = {"TypeAttr": "::mlir::TypeAttr"}.get(ATTR_BASE[a.type])
        lines = ["    ::llvm::LogicalResult $cppClass::verify() {",
                 "      ::mlir::Attribute attr = (*this)->getAttr(\"%s\");"
                 % a.name]
        if a.required:
            lines += ["      if (!attr)",
                      "        return emitOpError(\"requires attribute '%s'\");"
                      % a.name]
        if storage:
            lines += ["      if (attr && !::llvm::isa<%s>(attr))" % storage,
                      "        return emitOpError(\"attribute '%s' must be a "
                      "%s\");" % (a.name, storage.split("::")[-1])]
        lines += ["      return ::mlir::success();", "    }"]
        return lines


HEADER = """\
//===- ONNXOps.td - ONNX operators from the schemas ------*- tablegen -*-===//
//
// GENERATED FILE: do not edit by hand. It is checked in and regenerated
// after changing utils/gen_onnx_ops.py or the schema dump
// utils/onnx_schemas.json:
//
//   python3 utils/gen_onnx_ops.py
//
// Source: onnx %(version)s schema dump, domain ai.onnx, newest schema of
// each operator (opset %(opset)d), %(count)d operators. Hand-written parts of
// the dialect (dialect, types, onnx.NoValue/Yield/DimGroup) are in
// ONNXBase.td and ONNXExtraOps.td. Conventions: docs/onnx-dialect.md.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_DIALECT_ONNX_ONNXOPS_TD
#define ONYX_DIALECT_ONNX_ONNXOPS_TD

include "onyx/Dialect/ONNX/ONNXBase.td"
include "onyx/Dialect/ONNX/ONNXExtraOps.td"
"""

FOOTER = """
#endif // ONYX_DIALECT_ONNX_ONNXOPS_TD
"""


def newest_schemas(schemas):
    newest = {}
    for s in schemas:
        if s.name not in newest or s.since_version > newest[s.name].since_version:
            newest[s.name] = s
    return [newest[n] for n in sorted(newest)]


def generate(doc, schemas, report):
    schemas = newest_schemas(schemas)
    for s in schemas:
        if s.name in HAND_WRITTEN_OPS:
            raise SystemExit("error: schema op %s clashes with a hand-written "
                             "op" % s.name)
    parts = [HEADER % {"version": doc["onnx_version"],
                       "opset": doc["max_opset"],
                       "count": len(schemas)}]
    for s in schemas:
        parts.append("")
        parts.append("//===" + "-" * 70 + "===//")
        parts.append("// %s" % s.name)
        parts.append("//===" + "-" * 70 + "===//")
        parts.append("")
        parts.append(OpGen(s, report).generate())
    parts.append(FOOTER)
    report["count"] = len(schemas)
    return "\n".join(parts)


# ---------------------------------------------------------------------------
# The importer's schema table: every version of every operator.
# ---------------------------------------------------------------------------

TABLE_HEADER = """\
//===- ONNXSchemaTable.inc - Every ai.onnx schema version -------*- C++ -*-===//
//
// GENERATED FILE: do not edit by hand; regenerate with
//
//   python3 utils/gen_onnx_ops.py
//
// Source: onnx %(version)s schema dump (utils/onnx_schemas.json), domain
// ai.onnx, %(count)d schemas of %(ops)d operators, opsets up to %(opset)d.
// Included once, by lib/Import/SchemaRegistry.cpp.
//
//===----------------------------------------------------------------------===//

// clang-format off
"""

OPTION_CXX = {"single": "Option::Single", "optional": "Option::Optional",
              "variadic": "Option::Variadic"}


def default_text(attr):
    """The default as the canonical text SchemaRegistry compares with."""
    if not attr.has_default:
        return None
    v = attr.default
    t = attr.type
    if t == AttrType.INT:
        return str(int(v))
    if t == AttrType.FLOAT:
        return f32_literal(v)
    if t == AttrType.STRING:
        return v
    if t == AttrType.INTS:
        return ",".join(str(int(x)) for x in v)
    if t == AttrType.FLOATS:
        return ",".join(f32_literal(x) for x in v)
    if t == AttrType.STRINGS:
        return ",".join(v)
    return None


def generate_table(doc, schemas):
    schemas = sorted(schemas, key=lambda s: (s.name, s.since_version))
    out = [TABLE_HEADER % {"version": doc["onnx_version"],
                           "count": len(schemas),
                           "ops": len({s.name for s in schemas}),
                           "opset": doc["max_opset"]}]
    out.append("static const int kMaxOpset = %d;" % doc["max_opset"])
    out.append("")
    entries = []
    for k, s in enumerate(schemas):
        tag = "%s_%d" % (s.name, s.since_version)
        def formals(kind, items):
            if not items:
                return "nullptr", 0
            name = "k%s_%s" % (kind, tag)
            rows = ["  {%s, %s, %s, %s, %d}," % (
                cxx_string(p.name), cxx_string(p.typeStr), OPTION_CXX[p.option],
                "true" if p.homogeneous else "false", p.min_arity)
                for p in items]
            out.append("static const Formal %s[] = {\n%s\n};" % (name, "\n".join(rows)))
            return name, len(items)
        ins = formals("In", s.inputs)
        outs = formals("Out", s.outputs)
        attrs = [s.attributes[n] for n in sorted(s.attributes)]
        if attrs:
            name = "kAttr_%s" % tag
            rows = []
            for a in attrs:
                dt = default_text(a)
                rows.append("  {%s, AttrKind::%s, %s, %s, %s}," % (
                    cxx_string(a.name), a.type,
                    "true" if a.required else "false",
                    "true" if a.has_default else "false",
                    cxx_string(dt) if dt is not None else "nullptr"))
            out.append("static const Attr %s[] = {\n%s\n};" % (name, "\n".join(rows)))
            at = (name, len(attrs))
        else:
            at = ("nullptr", 0)
        cons = []
        for c in s.type_constraints:
            cname = "kAllowed_%s_%s" % (tag, sanitize(c.type_param_str))
            out.append("static const char *const %s[] = {%s};" % (
                cname, ", ".join(cxx_string(t) for t in c.allowed_type_strs)))
            cons.append("  {%s, %s, %d}," % (cxx_string(c.type_param_str), cname,
                                             len(c.allowed_type_strs)))
        if cons:
            tcname = "kCons_%s" % tag
            out.append("static const TypeConstraint %s[] = {\n%s\n};" % (tcname, "\n".join(cons)))
            tc = (tcname, len(cons))
        else:
            tc = ("nullptr", 0)
        entries.append("  {%s, %d, %s, %s, %d, %s, %d, %s, %d, %s, %d}," % (
            cxx_string(s.name), s.since_version,
            "true" if s.deprecated else "false",
            ins[0], ins[1], outs[0], outs[1], at[0], at[1], tc[0], tc[1]))
        out.append("")
    out.append("static const OpSchema kSchemas[] = {")
    out.extend(entries)
    out.append("};")
    out.append("// clang-format on")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-o", "--output", default=DEFAULT_OUTPUT)
    ap.add_argument("--table", default=DEFAULT_TABLE)
    ap.add_argument("--schemas", default=DEFAULT_SCHEMAS)
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 if an output is out of date")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args()

    doc, schemas = load_schemas(args.schemas)
    report = {"warnings": [], "renamed": [], "manual_attrs": [],
              "segments": [], "count": 0}
    outputs = [(args.output, generate(doc, schemas, report)),
               (args.table, generate_table(doc, schemas))]

    if args.check:
        stale = False
        for path, text in outputs:
            try:
                with open(path) as f:
                    current = f.read()
            except OSError:
                current = None
            if current != text:
                print("%s is out of date; run python3 utils/gen_onnx_ops.py"
                      % path, file=sys.stderr)
                stale = True
        return 1 if stale else 0

    for path, text in outputs:
        with open(path, "w") as f:
            f.write(text)
    if not args.quiet:
        print("wrote %d ops to %s and %d schemas to %s" % (
            report["count"], args.output, len(schemas), args.table))
        for key, title in (("renamed", "renamed operands/results"),
                           ("manual_attrs", "attributes kept out of ODS"),
                           ("segments", "ops with segment sizes"),
                           ("warnings", "warnings")):
            for line in report[key]:
                print("  %s: %s" % (title, line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
