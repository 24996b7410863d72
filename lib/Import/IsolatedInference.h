//===- IsolatedInference.h - libonnx's shape inference, in a child -*- C++
//-*-=//
//
// libonnx (1.12) shape inference trusts what it reads: fuzzing found it
// dereferencing missing attributes, unchecked attribute values and value
// kinds it did not expect (docs/testing.md, "Fuzzing the importer"). The
// graph checks (GraphCheck.h) reject every class found so far, but they
// cannot know each inference function's assumptions. So libonnx runs in a
// child process: forked on the first inference, it receives each model
// through a socket (initializers of more than 1024 elements as typed graph
// inputs without their data), infers, sends back the value types it found
// (graph inputs, outputs and value_info of every graph, subgraphs included)
// and waits for the next; the compiler's process applies them. A child that
// dies by a signal, exits abnormally or runs out of time makes the import
// fail with one error naming the first top-level node whose inference kills
// it (found by re-running inference on prefixes of the graph); the next
// inference forks a new child.
//
//===----------------------------------------------------------------------===//
#ifndef ONYX_LIB_IMPORT_ISOLATEDINFERENCE_H
#define ONYX_LIB_IMPORT_ISOLATEDINFERENCE_H

#include <optional>
#include <string>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace onyx::importer {

/// Why libonnx's inference could not finish: the index of the top-level node
/// whose inference killed the child (-1 when none could be singled out) and
/// what happened ("killed by signal 11 (Segmentation fault)", ...).
struct InferenceFailure {
  int node = -1;
  std::string cause;
};

/// Runs libonnx's InferShapes on `model` (check_type off, strict mode off,
/// data propagation on) in a child process and merges the types it inferred
/// into `model`. An exception inside libonnx is not a failure (inference is
/// best effort: what it typed before it threw is kept). Where the system
/// cannot fork, inference runs in this process.
std::optional<InferenceFailure> inferShapesIsolated(onnx::ModelProto &model);

/// Seconds a child may run before it is killed and the import fails.
constexpr unsigned kInferenceTimeLimitSeconds = 60;

} // namespace onyx::importer

#endif // ONYX_LIB_IMPORT_ISOLATEDINFERENCE_H
