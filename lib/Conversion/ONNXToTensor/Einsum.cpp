//===- Einsum.cpp - Einsum ------------------------------------------------===//
//
// The equation is parsed by the shape library (lib/Shape/EinsumShapes.cpp)
// into one label per operand dim; every label has an extent there. Two
// lowerings:
//
// * Matrix products. Two operands whose labels are all batch (both inputs
//   and the output), m (first input and output), n (second input and
//   output) or k (both inputs, summed), with at least one of each of m, n
//   and k: each operand is brought to [batch..., m..., k...] (or the
//   transposed [batch..., k..., m...]) order, copying only when its own
//   order is neither, collapsed to [batch..., M, K], contracted by the same
//   (batch..., m, n, k) linalg.generic MatMul builds, so that the CPU
//   pipeline hands it to BLAS, then expanded and, if the output order
//   differs, transposed.
// * Everything else (diagonals from repeated labels, sums of labels that
//   occur once, transposes, elementwise products, matrix-vector forms):
//   one linalg.generic whose loops are the output labels (parallel) and
//   the summed labels (reduction); a repeated label on one operand is the
//   same loop in two positions of its indexing map.
//
// Ellipsis dims that broadcast only at run time are first expanded to the
// broadcast extents, so that every loop is bounded by an indexing map.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "onyx/Shape/EinsumShapes.h"

using namespace mlir;

namespace onyx::conversion {
namespace {

Value multiply(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, l, x, y);
  return arith::MulIOp::create(b, l, x, y);
}

Value add(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, x, y);
  return arith::AddIOp::create(b, l, x, y);
}

/// `operand` (labels `labels`) copied to the label order `order` (a
/// permutation of `labels`; no repeated labels).
Value permute(OpBuilder &b, Location loc, Value operand,
              ArrayRef<int64_t> labels, ArrayRef<int64_t> order,
              const shape::EinsumShape &shape) {
  OperandAccess access;
  access.tensor = operand;
  for (int64_t l : labels) {
    access.loops.push_back(llvm::find(order, l) - order.begin());
    access.isOne.push_back(Value());
  }
  SmallVector<OpFoldResult> dims;
  for (int64_t l : order)
    dims.push_back(shape.extents[l]);
  int64_t rank = int64_t(order.size());
  Type element = cast<RankedTensorType>(operand.getType()).getElementType();
  return buildGeneric(
      b, loc, {access}, emptyTensor(b, loc, dims, element),
      llvm::to_vector(llvm::seq<int64_t>(0, rank)),
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [](OpBuilder &, Location, ValueRange in, Value) { return in[0]; });
}

/// Operand `i` with its run-time-broadcast (ellipsis) dims expanded to the
/// labels' extents; the broadcast description is updated to match.
Value expandRuntimeBroadcast(OpBuilder &b, Location loc, Value operand,
                             shape::OperandBroadcast &bc,
                             ArrayRef<int64_t> labels,
                             const shape::EinsumShape &shape) {
  if (llvm::none_of(bc.kinds, [](shape::BroadcastKind k) {
        return k == shape::BroadcastKind::Runtime;
      }))
    return operand;
  int64_t rank = int64_t(labels.size());
  OperandAccess access;
  access.tensor = operand;
  SmallVector<OpFoldResult> dims = shape::getDims(b, loc, operand);
  for (int64_t d = 0; d < rank; ++d) {
    bool runtime = bc.kinds[d] == shape::BroadcastKind::Runtime;
    access.loops.push_back(d);
    access.isOne.push_back(runtime ? bc.isOne[d] : Value());
    if (runtime) {
      dims[d] = shape.extents[labels[d]];
      bc.kinds[d] = shape::BroadcastKind::Equal;
      bc.isOne[d] = Value();
    }
  }
  Type element = cast<RankedTensorType>(operand.getType()).getElementType();
  return buildGeneric(
      b, loc, {access}, emptyTensor(b, loc, dims, element),
      llvm::to_vector(llvm::seq<int64_t>(0, rank)),
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [](OpBuilder &, Location, ValueRange in, Value) { return in[0]; });
}

/// The general form: one generic over output labels then summed labels.
Value lowerGeneral(OpBuilder &b, Location loc, ArrayRef<Value> operands,
                   const shape::EinsumShape &shape, Type element) {
  const shape::EinsumEquation &eq = shape.equation;
  SmallVector<int64_t> loopOf(eq.numLabels(), -1);
  int64_t numLoops = 0;
  for (int64_t l : eq.output)
    loopOf[l] = numLoops++;
  int64_t numParallel = numLoops;
  for (int64_t l = 0; l < eq.numLabels(); ++l)
    if (loopOf[l] < 0)
      loopOf[l] = numLoops++;
  SmallVector<OperandAccess> inputs;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    OperandAccess access;
    access.tensor = operand;
    for (auto [d, l] : llvm::enumerate(eq.operands[i])) {
      bool one = shape.operands[i].kinds[d] == shape::BroadcastKind::One;
      access.loops.push_back(one ? -1 : loopOf[l]);
      access.isOne.push_back(Value());
    }
    inputs.push_back(std::move(access));
  }
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  for (int64_t l = numParallel; l < numLoops; ++l)
    iterators[l] = utils::IteratorType::reduction;
  bool reduces = numLoops > numParallel;
  Value init = reduces ? filledTensor(b, loc, shape.dims,
                                      scalarConstant(b, loc, element, 0.0))
                       : emptyTensor(b, loc, shape.dims, element);
  return buildGeneric(
      b, loc, inputs, init, llvm::to_vector(llvm::seq<int64_t>(0, numParallel)),
      iterators, [&](OpBuilder &nb, Location nl, ValueRange in, Value acc) {
        Value product = in[0];
        for (Value v : in.drop_front())
          product = multiply(nb, nl, product, v);
        return reduces ? add(nb, nl, acc, product) : product;
      });
}

/// The label roles of a two-operand matrix product, if it is one.
struct MatrixProduct {
  SmallVector<int64_t> batch, m, n, k;
};

std::optional<MatrixProduct> matchMatrixProduct(const shape::EinsumShape &s) {
  const shape::EinsumEquation &eq = s.equation;
  if (eq.operands.size() != 2)
    return std::nullopt;
  for (const auto &bc : s.operands)
    for (shape::BroadcastKind k : bc.kinds)
      if (k != shape::BroadcastKind::Equal)
        return std::nullopt;
  for (const auto &labels : eq.operands)
    for (auto [d, l] : llvm::enumerate(labels))
      if (llvm::count(labels, l) != 1)
        return std::nullopt;
  auto in = [](ArrayRef<int64_t> labels, int64_t l) {
    return llvm::is_contained(labels, l);
  };
  MatrixProduct p;
  // batch, m and n in output order; k in the first operand's order.
  for (int64_t l : eq.output) {
    bool a = in(eq.operands[0], l), c = in(eq.operands[1], l);
    if (a && c)
      p.batch.push_back(l);
    else if (a)
      p.m.push_back(l);
    else
      p.n.push_back(l);
  }
  for (int64_t l : eq.operands[0]) {
    if (in(eq.output, l))
      continue;
    if (!in(eq.operands[1], l))
      return std::nullopt; // summed over one operand only
    p.k.push_back(l);
  }
  for (int64_t l : eq.operands[1])
    if (!in(eq.output, l) && !in(eq.operands[0], l))
      return std::nullopt;
  if (p.m.empty() || p.n.empty() || p.k.empty())
    return std::nullopt;
  return p;
}

SmallVector<int64_t> concat(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                            ArrayRef<int64_t> c) {
  SmallVector<int64_t> r(a);
  r.append(b.begin(), b.end());
  r.append(c.begin(), c.end());
  return r;
}

/// `operand` as a [batch..., rows, cols] matrix where `rowLabels` and
/// `colLabels` are collapsed into one dim each. `transposed` is set when
/// the operand is used as [batch..., cols, rows] instead (its own order).
Value asMatrix(OpBuilder &b, Location loc, Value operand,
               ArrayRef<int64_t> labels, ArrayRef<int64_t> batch,
               ArrayRef<int64_t> rowLabels, ArrayRef<int64_t> colLabels,
               const shape::EinsumShape &shape, bool &transposed) {
  SmallVector<int64_t> direct = concat(batch, rowLabels, colLabels);
  SmallVector<int64_t> swapped = concat(batch, colLabels, rowLabels);
  transposed = false;
  ArrayRef<int64_t> first = rowLabels, second = colLabels;
  if (ArrayRef<int64_t>(labels) == ArrayRef<int64_t>(swapped) &&
      ArrayRef<int64_t>(labels) != ArrayRef<int64_t>(direct)) {
    transposed = true;
    std::swap(first, second);
  } else if (ArrayRef<int64_t>(labels) != ArrayRef<int64_t>(direct)) {
    operand = permute(b, loc, operand, labels, direct, shape);
  }
  if (first.size() == 1 && second.size() == 1)
    return operand;
  SmallVector<ReassociationIndices> groups;
  int64_t d = 0;
  for (size_t i = 0; i < batch.size(); ++i)
    groups.push_back({d++});
  for (size_t g = 0; g < 2; ++g) {
    ReassociationIndices group;
    for (size_t i = 0; i < (g == 0 ? first : second).size(); ++i)
      group.push_back(d++);
    groups.push_back(group);
  }
  return tensor::CollapseShapeOp::create(b, loc, operand, groups);
}

Value lowerMatrixProduct(OpBuilder &b, Location loc, Value lhs, Value rhs,
                         const MatrixProduct &p,
                         const shape::EinsumShape &shape, Type element) {
  const shape::EinsumEquation &eq = shape.equation;
  bool lhsT, rhsT;
  Value a =
      asMatrix(b, loc, lhs, eq.operands[0], p.batch, p.m, p.k, shape, lhsT);
  Value c =
      asMatrix(b, loc, rhs, eq.operands[1], p.batch, p.k, p.n, shape, rhsT);
  auto extentsOf = [&](ArrayRef<int64_t> labels) {
    SmallVector<OpFoldResult> r;
    for (int64_t l : labels)
      r.push_back(shape.extents[l]);
    return r;
  };
  int64_t nb = int64_t(p.batch.size());
  SmallVector<OpFoldResult> productDims = extentsOf(p.batch);
  productDims.push_back(shape::productOf(b, loc, extentsOf(p.m)));
  productDims.push_back(shape::productOf(b, loc, extentsOf(p.n)));

  // Loops: batch..., m, n, k, as MatMul's contraction (BLAS-shaped).
  int64_t mLoop = nb, nLoop = nb + 1, kLoop = nb + 2;
  auto matrixAccess = [&](Value v, int64_t row, int64_t col, bool t) {
    OperandAccess access;
    access.tensor = v;
    for (int64_t i = 0; i < nb; ++i)
      access.loops.push_back(i);
    access.loops.push_back(t ? col : row);
    access.loops.push_back(t ? row : col);
    access.isOne.assign(access.loops.size(), Value());
    return access;
  };
  SmallVector<utils::IteratorType> iterators(nb + 3,
                                             utils::IteratorType::parallel);
  iterators[kLoop] = utils::IteratorType::reduction;
  Value init =
      filledTensor(b, loc, productDims, scalarConstant(b, loc, element, 0.0));
  Value product = buildGeneric(
      b, loc,
      {matrixAccess(a, mLoop, kLoop, lhsT),
       matrixAccess(c, kLoop, nLoop, rhsT)},
      init, llvm::to_vector(llvm::seq<int64_t>(0, nb + 2)), iterators,
      [](OpBuilder &nb2, Location nl, ValueRange in, Value acc) {
        return add(nb2, nl, acc, multiply(nb2, nl, in[0], in[1]));
      });

  // [batch..., M, N] -> [batch..., m..., n...] -> output order.
  SmallVector<int64_t> productLabels = concat(p.batch, p.m, p.n);
  if (p.m.size() > 1 || p.n.size() > 1) {
    // tensor.reshape rather than expand_shape: the strided-metadata
    // expansion of a memref.expand_shape with several dynamic extents in
    // one group crashes in MLIR 22.
    SmallVector<OpFoldResult> dims = extentsOf(productLabels);
    SmallVector<Value> extents;
    for (OpFoldResult d : dims)
      extents.push_back(shape::toValue(b, loc, d));
    Value shapeTensor = tensor::FromElementsOp::create(
        b, loc,
        RankedTensorType::get({int64_t(extents.size())}, b.getIndexType()),
        extents);
    auto type = RankedTensorType::get(shape::toStaticShape(dims), element);
    product = tensor::ReshapeOp::create(b, loc, type, product, shapeTensor);
  }
  if (ArrayRef<int64_t>(productLabels) != ArrayRef<int64_t>(eq.output))
    product = permute(b, loc, product, productLabels, eq.output, shape);
  return product;
}

FailureOr<SmallVector<Value>> lowerEinsum(Operation *op, OpBuilder &b) {
  auto einsum = cast<onnx::ONNXEinsumOp>(op);
  Location loc = op->getLoc();
  if (op->getNumOperands() == 0)
    return op->emitError("Einsum needs at least one input");
  Type element;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto type = requireRanked(op, v, "input " + std::to_string(i));
    if (failed(type))
      return failure();
    if (!element)
      element = type->getElementType();
    if (type->getElementType() != element)
      return op->emitError("Einsum inputs have different element types");
  }
  if (failed(requireSupportedElement(op, element)))
    return failure();
  if (element.isInteger(1))
    return op->emitError("Einsum on i1 is not supported");

  auto shape =
      shape::einsumShape(b, loc, einsum.getEquation(), op->getOperands(), op);
  if (failed(shape))
    return failure();
  SmallVector<Value> operands;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    operands.push_back(expandRuntimeBroadcast(
        b, loc, v, shape->operands[i], shape->equation.operands[i], *shape));

  if (auto product = matchMatrixProduct(*shape)) {
    // An output ordered [batch, n, m] is the product with the operands
    // swapped: no transpose of the result then.
    if (concat(product->batch, product->m, product->n) !=
        shape->equation.output) {
      shape::EinsumShape swapped = *shape;
      std::swap(swapped.operands[0], swapped.operands[1]);
      std::swap(swapped.equation.operands[0], swapped.equation.operands[1]);
      auto other = matchMatrixProduct(swapped);
      if (other &&
          concat(other->batch, other->m, other->n) == swapped.equation.output)
        return SmallVector<Value>{lowerMatrixProduct(
            b, loc, operands[1], operands[0], *other, swapped, element)};
    }
    return SmallVector<Value>{lowerMatrixProduct(
        b, loc, operands[0], operands[1], *product, *shape, element)};
  }
  return SmallVector<Value>{lowerGeneral(b, loc, operands, *shape, element)};
}

} // namespace

void addEinsumLowerings(LoweringTable &t) { t["onnx.Einsum"] = lowerEinsum; }

} // namespace onyx::conversion
