"""Models with ONNX's newer element types (docs/element-types.md), written
with onnx 1.12's helper by their type codes (1.12 predates them).

  data   OUT.onnx   x: int4[2,3] -> Transpose -> y; an odd-length packed
                    uint4 initializer -> Identity -> c; f: float8e4m3fn[3]
                    -> Identity -> g; also writes OUT-x.pb and OUT-f.pb
"""
import sys

from onnx import TensorProto, helper

INT4, UINT4, FLOAT8E4M3FN = 22, 21, 17


def tensor(name, code, dims, raw):
    t = TensorProto()
    t.name = name
    t.data_type = code
    t.dims.extend(dims)
    t.raw_data = bytes(raw)
    return t


def data_model(out):
    # int4 [[1, -2, 3], [-8, 7, -1]]: codes 1, 0xe, 3, 8, 7, 0xf packed
    # two per byte, element 2i in the low nibble.
    x = tensor("x", INT4, [2, 3], [0xE1, 0x83, 0xF7])
    # uint4 [1, 2, 3, 15, 9]: the last byte's high nibble is padding.
    c = tensor("c", UINT4, [5], [0x21, 0xF3, 0x09])
    f = tensor("f", FLOAT8E4M3FN, [3], [0x38, 0xC0, 0x7F])  # 1, -2, NaN
    graph = helper.make_graph(
        [
            helper.make_node("Transpose", ["x"], ["y"], perm=[1, 0], name="t"),
            helper.make_node("Identity", ["c"], ["c_out"], name="i"),
            helper.make_node("Identity", ["f"], ["g"], name="j"),
        ],
        "element_types",
        [helper.make_tensor_value_info("x", INT4, [2, 3]),
         helper.make_tensor_value_info("f", FLOAT8E4M3FN, [3])],
        [helper.make_tensor_value_info("y", INT4, [3, 2]),
         helper.make_tensor_value_info("c_out", UINT4, [5]),
         helper.make_tensor_value_info("g", FLOAT8E4M3FN, [3])],
        initializer=[c],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 8
    with open(out, "wb") as f_out:
        f_out.write(model.SerializeToString())
    stem = out[:-len(".onnx")] if out.endswith(".onnx") else out
    for t in (x, f):
        with open(f"{stem}-{t.name}.pb", "wb") as f_out:
            f_out.write(t.SerializeToString())


def main():
    kind, out = sys.argv[1], sys.argv[2]
    {"data": data_model}[kind](out)


if __name__ == "__main__":
    main()
