//===- IsolatedInference.cpp - libonnx's shape inference, in a child ------===//
//
// See IsolatedInference.h. Compiled with exceptions and RTTI (libonnx
// throws); no exception escapes this file.
//
//===----------------------------------------------------------------------===//

#include "IsolatedInference.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace onyx::importer {
namespace {

/// Every graph of `graph` in one fixed order: the graph itself, then each
/// node's graph attributes, depth first. Parent and child walk the same
/// (forked) model, so the order matches. Protobuf's parser bounds nesting.
void collectGraphs(onnx::GraphProto &graph,
                   std::vector<onnx::GraphProto *> &out) {
  out.push_back(&graph);
  for (auto &node : *graph.mutable_node())
    for (auto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        collectGraphs(*attr.mutable_g(), out);
      for (auto &sub : *attr.mutable_graphs())
        collectGraphs(sub, out);
    }
}

void inferInProcess(onnx::ModelProto &model) {
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false,
                                        /*strict_mode=*/0,
                                        /*data_prop=*/true);
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (...) {
    // Best effort; values left untyped fall back to the schemas.
  }
}

/// The value types of every graph (inputs, outputs, value_info: what
/// libonnx writes), one bundle node per graph in collectGraphs' order.
std::string packTypes(onnx::ModelProto &model) {
  std::vector<onnx::GraphProto *> graphs;
  collectGraphs(*model.mutable_graph(), graphs);
  onnx::GraphProto bundle;
  for (onnx::GraphProto *graph : graphs) {
    onnx::GraphProto *types = bundle.add_node()->add_attribute()->mutable_g();
    *types->mutable_input() = graph->input();
    *types->mutable_output() = graph->output();
    *types->mutable_value_info() = graph->value_info();
  }
  return bundle.SerializeAsString();
}

/// Applies a bundle from packTypes to `model`; false if it does not fit
/// (never expected: the child worked on a copy of the same model).
bool unpackTypes(const std::string &bytes, onnx::ModelProto &model) {
  onnx::GraphProto bundle;
  if (!bundle.ParseFromString(bytes))
    return false;
  std::vector<onnx::GraphProto *> graphs;
  collectGraphs(*model.mutable_graph(), graphs);
  if (size_t(bundle.node_size()) != graphs.size())
    return false;
  for (size_t i = 0; i < graphs.size(); ++i) {
    const onnx::NodeProto &entry = bundle.node(int(i));
    if (entry.attribute_size() != 1 || !entry.attribute(0).has_g())
      return false;
    const onnx::GraphProto &types = entry.attribute(0).g();
    onnx::GraphProto &graph = *graphs[i];
    if (types.input_size() != graph.input_size() ||
        types.output_size() != graph.output_size())
      return false;
    for (int k = 0; k < graph.input_size(); ++k)
      if (types.input(k).name() != graph.input(k).name())
        return false;
    for (int k = 0; k < graph.output_size(); ++k)
      if (types.output(k).name() != graph.output(k).name())
        return false;
  }
  for (size_t i = 0; i < graphs.size(); ++i) {
    const onnx::GraphProto &types = bundle.node(int(i)).attribute(0).g();
    onnx::GraphProto &graph = *graphs[i];
    *graph.mutable_input() = types.input();
    *graph.mutable_output() = types.output();
    *graph.mutable_value_info() = types.value_info();
  }
  return true;
}

/// Initializers with more elements than this reach the child as typed
/// graph inputs without their data: libonnx reads initializer data only to
/// propagate shape values (Reshape's shape, Slice's starts, ...), which are
/// small, and weights would otherwise be copied through the socket.
constexpr int64_t kMaxSentInitializerElements = 1024;

bool sendAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

bool recvAll(int fd, char *data, size_t size) {
  while (size > 0) {
    ssize_t n = read(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

/// What the parent sends before each serialized model.
struct Request {
  uint64_t modelBytes;
  int32_t keepNodes;  // top-level nodes to keep; negative: all
  int32_t mainInputs; // the main graph's inputs before the stand-ins
};

[[noreturn]] void serve(int fd) {
  // A crash ends this process only, quietly: default actions instead of
  // the parent's handlers (LLVM's stack printer, a fuzzer's, a
  // sanitizer's), no output on the parent's terminal.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS,
                  SIGALRM, SIGXCPU, SIGINT})
    signal(sig, SIG_DFL);
  int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) {
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
  }
  for (;;) {
    Request request;
    if (!recvAll(fd, reinterpret_cast<char *>(&request), sizeof(request)))
      _exit(0); // the parent closed the socket (it is done, or exited)
    std::string bytes(request.modelBytes, '\0');
    if (!recvAll(fd, bytes.data(), bytes.size()))
      _exit(0);
    onnx::ModelProto model;
    if (!model.ParseFromString(bytes))
      _exit(4);
    alarm(kInferenceTimeLimitSeconds);
    if (request.keepNodes >= 0) {
      auto *nodes = model.mutable_graph()->mutable_node();
      if (request.keepNodes < nodes->size())
        nodes->DeleteSubrange(request.keepNodes,
                              nodes->size() - request.keepNodes);
    }
    inferInProcess(model);
    auto *inputs = model.mutable_graph()->mutable_input();
    if (request.mainInputs >= 0 && request.mainInputs < inputs->size())
      inputs->DeleteSubrange(request.mainInputs,
                             inputs->size() - request.mainInputs);
    std::string types = packTypes(model);
    alarm(0);
    uint64_t size = types.size();
    if (!sendAll(fd, reinterpret_cast<const char *>(&size), sizeof(size)) ||
        !sendAll(fd, types.data(), types.size()))
      _exit(0);
  }
}

/// One request's outcome.
struct ChildRun {
  bool started = false; // false: no child process could be started
  bool finished = false;
  std::string types; // packTypes' bundle when finished
  std::string cause; // why not, when started and not finished
};

/// The child process that runs libonnx: forked once, on the first request,
/// and again after a request killed it. Requests are serialized.
class InferenceServer {
public:
  ~InferenceServer() { stop(); }

  ChildRun run(const std::string &model, int keepNodes, int mainInputs) {
    std::lock_guard<std::mutex> lock(mutex);
    ChildRun result;
    if (pid <= 0 && !start())
      return result;
    result.started = true;
    Request request{model.size(), keepNodes, mainInputs};
    uint64_t size = 0;
    bool ok = sendAll(fd, reinterpret_cast<const char *>(&request),
                      sizeof(request)) &&
              sendAll(fd, model.data(), model.size()) &&
              recvAll(fd, reinterpret_cast<char *>(&size), sizeof(size));
    if (ok) {
      result.types.resize(size);
      ok = recvAll(fd, result.types.data(), size);
    }
    if (ok) {
      result.finished = true;
      return result;
    }
    result.cause = reap();
    return result;
  }

private:
  bool start() {
    // The schemas are registered before the fork, once for all children.
    onnx::OpSchemaRegistry::Instance();
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      return false;
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t child = fork();
    if (child < 0) {
      close(fds[0]);
      close(fds[1]);
      return false;
    }
    if (child == 0) {
      close(fds[0]);
      serve(fds[1]);
    }
    close(fds[1]);
    pid = child;
    fd = fds[0];
    return true;
  }

  /// Closes the socket and waits for the child; what ended it.
  std::string reap() {
    close(fd);
    fd = -1;
    int status = 0;
    pid_t waited;
    while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    pid = -1;
    if (waited < 0)
      return std::string("could not be waited for (") + std::strerror(errno) +
             ")";
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
      return "did not finish within " +
             std::to_string(kInferenceTimeLimitSeconds) + " s";
    if (WIFSIGNALED(status)) {
      const char *name = strsignal(WTERMSIG(status));
      return "crashed (signal " + std::to_string(WTERMSIG(status)) +
             (name ? std::string(", ") + name : std::string()) + ")";
    }
    return "exited with status " +
           std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }

  void stop() {
    if (pid > 0)
      reap();
  }

  std::mutex mutex;
  pid_t pid = -1;
  int fd = -1;
};

InferenceServer &server() {
  static InferenceServer instance;
  return instance;
}

/// `model` serialized for the child, with large initializers replaced by
/// typed graph inputs (kMaxSentInitializerElements); `model` is unchanged.
std::string serializeForChild(onnx::ModelProto &model, int &mainInputs) {
  onnx::GraphProto &graph = *model.mutable_graph();
  mainInputs = graph.input_size();
  std::set<std::string> declared;
  for (const auto &input : graph.input())
    declared.insert(input.name());
  google::protobuf::RepeatedPtrField<onnx::TensorProto> all;
  all.Swap(graph.mutable_initializer());
  for (const onnx::TensorProto &t : all) {
    bool small = t.data_location() != onnx::TensorProto::EXTERNAL;
    int64_t count = 1;
    for (int64_t d : t.dims()) {
      if (d <= 0 || count > kMaxSentInitializerElements / d) {
        small = small && d == 0;
        break;
      }
      count *= d;
    }
    if (small) {
      *graph.add_initializer() = t;
      continue;
    }
    if (declared.count(t.name()))
      continue; // pre-IR-4: already a typed graph input
    onnx::ValueInfoProto *input = graph.add_input();
    input->set_name(t.name());
    auto *tensor = input->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(t.data_type());
    auto *shape = tensor->mutable_shape();
    for (int64_t d : t.dims())
      shape->add_dim()->set_dim_value(d);
  }
  std::string bytes = model.SerializeAsString();
  graph.mutable_input()->DeleteSubrange(mainInputs,
                                        graph.input_size() - mainInputs);
  graph.mutable_initializer()->Clear();
  graph.mutable_initializer()->Swap(&all);
  return bytes;
}

} // namespace

std::optional<InferenceFailure> inferShapesIsolated(onnx::ModelProto &model) {
  int mainInputs = 0;
  std::string bytes = serializeForChild(model, mainInputs);
  ChildRun run = server().run(bytes, /*keepNodes=*/-1, mainInputs);
  if (!run.started) {
    // No child process on this system (a sandbox without fork, no
    // descriptors left): the same inference, unisolated.
    inferInProcess(model);
    return std::nullopt;
  }
  if (run.finished) {
    if (unpackTypes(run.types, model))
      return std::nullopt;
    return InferenceFailure{-1, "returned types that do not fit the model"};
  }
  // Single out the node: a prefix of `lo` nodes is inferred, one of `hi`
  // nodes is not, so node hi-1 is what kills libonnx after the ones before.
  InferenceFailure failure{-1, run.cause};
  int lo = 0, hi = model.graph().node_size();
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    ChildRun probe = server().run(bytes, mid, mainInputs);
    if (!probe.started)
      return failure;
    if (probe.finished)
      lo = mid;
    else
      hi = mid;
  }
  if (hi > 0)
    failure.node = hi - 1;
  return failure;
}

} // namespace onyx::importer
