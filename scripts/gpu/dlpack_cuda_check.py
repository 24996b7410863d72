#!/usr/bin/env python3
"""CUDA checks of the onyx package on the GPU machine (issue 17):

    python3 scripts/gpu/dlpack_cuda_check.py CARRIED_DIR OUT_DIR

CARRIED_DIR holds mlp_cuda.so (examples/mlp_classifier.onnx compiled here
with --target=cuda) and mlp_cpu.so; PYTHONPATH must reach an `onyx` package
whose native module is built for this python (scripts/gpu/device_python.sh
builds it there). Prints one line per check and a summary; exits 1 when a
check fails.

1. torch CUDA tensors in, host numpy out: values against the CPU artifact
   (same model) and examples/reference.py, at batch 1, 7 and 64.
2. DLPack round trip on the device: run(..., device_outputs=True) returns
   DeviceTensors; torch.from_dlpack gives a CUDA tensor sharing the
   runtime's buffer (no copy), equal to the reference; fed back as an input
   of the next call (valid until that call returns), and torch ops on it.
3. A non-contiguous CUDA tensor is an OnyxError; the session stays usable.
   device_id beyond the devices is an OnyxError naming the option.
4. Profiling on CUDA: enable_profiling=True gives a Chrome trace with one
   event per call and kernel/library events (name, node, dur >= 0) inside
   the calls; the same count of device events for every call.
"""
import json
import os
import sys
import time

import numpy as np


def main():
    carried, out_dir = sys.argv[1], sys.argv[2]
    import torch
    import onyx
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "..", "examples"))
    from reference import reference

    fails = []

    def check(name, ok, detail=""):
        print("%-4s %s %s" % ("ok" if ok else "FAIL", name, detail))
        if not ok:
            fails.append(name)

    print("torch", torch.__version__, "device", torch.cuda.get_device_name(0))
    cuda_so = os.path.join(carried, "mlp_cuda.so")
    cpu_so = os.path.join(carried, "mlp_cpu.so")
    trace = os.path.join(out_dir, "cuda_trace.json")
    t0 = time.perf_counter()
    s = onyx.InferenceSession(cuda_so, enable_profiling=True, profile_file=trace)
    check("cuda session", s.target == "cuda",
          "created in %.1f ms" % ((time.perf_counter() - t0) * 1e3))
    c = onyx.InferenceSession(cpu_so)
    # The device through the session options (OnyxSessionOptions.deviceId).
    bad = torch.cuda.device_count()
    try:
        onyx.InferenceSession(cuda_so, device_id=bad)
        check("device_id beyond the devices is an error", False)
    except onyx.OnyxError as e:
        check("device_id beyond the devices is an error",
              "deviceId %d" % bad in str(e), str(e)[-90:])

    # 1. CUDA tensors in, numpy out.
    for b in (1, 7, 64):
        x = torch.randn(b, 16, device="cuda", generator=None)
        (y,) = s.run(None, {"x": x})
        xn = x.cpu().numpy()
        (yc,) = c.run(None, {"x": xn})
        ref = reference(xn)
        err = float(np.abs(y - ref).max() / max(np.abs(ref).max(), 1e-30))
        check("torch cuda in, numpy out, batch %d" % b,
              isinstance(y, np.ndarray) and y.shape == (b, 10) and err <= 1e-5,
              "rel err vs reference %.2e, vs cpu artifact %.2e" % (
                  err, float(np.abs(y - yc).max())))

    # 2. Device outputs through DLPack.
    x = torch.randn(7, 16, device="cuda")
    (d,) = s.run(None, {"x": x}, device_outputs=True)
    check("device output is a DeviceTensor",
          isinstance(d, onyx.DeviceTensor) and tuple(d.shape) == (7, 10),
          "dlpack device %r" % (d.__dlpack_device__(),))
    t = torch.from_dlpack(d)
    ref = reference(x.cpu().numpy())
    err = float(np.abs(t.cpu().numpy() - ref).max() / np.abs(ref).max())
    check("torch.from_dlpack(device output)", t.is_cuda and err <= 1e-5,
          "device %s, rel err %.2e" % (t.device, err))
    ptr = t.data_ptr()
    (d2,) = s.run(None, {"x": x}, device_outputs=True)
    t2 = torch.from_dlpack(d2)
    check("each call gets its own device buffer", t2.data_ptr() != ptr,
          "0x%x vs 0x%x" % (t2.data_ptr(), ptr))
    # A device output, through torch ops, as the next call's input (the
    # model takes 16 columns: 10 + 6 of them), its output left on the device.
    x3 = torch.cat([t2, t2[:, :6]], dim=1).contiguous()
    (d3,) = s.run(None, {"x": x3}, device_outputs=True)
    ref3 = reference(x3.cpu().numpy())
    y3 = torch.from_dlpack(d3).cpu().numpy()
    check("device output fed back (via torch ops) as an input",
          float(np.abs(y3 - ref3).max() / np.abs(ref3).max()) <= 1e-5)

    # 3. Non-contiguous CUDA input.
    xt = torch.randn(16, 7, device="cuda").t()
    try:
        s.run(None, {"x": xt})
        check("non-contiguous cuda tensor rejected", False)
    except onyx.OnyxError as e:
        check("non-contiguous cuda tensor rejected", True, str(e)[:100])
    (y5,) = s.run(None, {"x": x})
    check("session usable after the error", y5.shape == (7, 10))

    # 5. The caller's stream (cuda_stream= -> OnyxSessionOptions.cudaStream):
    # the input is produced on that stream right before the run, so a
    # session working on a stream of its own could read it unfinished.
    st = torch.cuda.Stream()
    ss = onyx.InferenceSession(cuda_so, cuda_stream=st)
    for b in (1, 64, 4096):
        with torch.cuda.stream(st):
            base = torch.randn(b, 16, device="cuda")
            xs = base
            for _ in range(20):  # keep the stream busy
                xs = torch.tanh(xs) * 1.5
            (ys,) = ss.run(None, {"x": xs})
            (ds,) = ss.run(None, {"x": xs}, device_outputs=True)
            td = torch.from_dlpack(ds).clone()
        st.synchronize()
        ref = reference(xs.cpu().numpy())
        err = float(np.abs(ys - ref).max() / max(np.abs(ref).max(), 1e-30))
        errd = float(np.abs(td.cpu().numpy() - ref).max() /
                     max(np.abs(ref).max(), 1e-30))
        check("caller's stream, batch %d" % b, err <= 1e-5 and errd <= 1e-5,
              "rel err %.2e, device output %.2e" % (err, errd))
    try:
        onyx.InferenceSession(cpu_so, cuda_stream=st)
        check("cuda_stream for a host artifact is an error", False)
    except onyx.OnyxError as e:
        check("cuda_stream for a host artifact is an error",
              "host" in str(e), str(e)[-80:])

    # 4. The profile.
    calls_made = 3 + 3 + 1  # the runs above (the rejected one raised before any call)
    s.end_profiling()
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    calls = sorted([e for e in events if e["cat"] == "call"], key=lambda e: e["ts"])
    dev = [e for e in events if e["cat"] in ("kernel", "library")]
    ok_shape = all(e["ph"] == "X" and e["name"] and e["dur"] >= 0 for e in events)
    per_call = []
    for call in calls:
        per_call.append(sum(1 for e in dev if call["ts"] - 50 <= e["ts"] <= call["ts"] + call["dur"] + 50))
    check("cuda trace: one event per call", len(calls) == calls_made,
          "%d calls" % len(calls))
    check("cuda trace: kernel/library events with names and dur >= 0",
          ok_shape and len(dev) >= len(calls) and len(set(per_call)) == 1,
          "%d device events, per call %s, kinds %s" % (
              len(dev), per_call, sorted({e["cat"] for e in dev})))
    names = sorted({(e["cat"], e["name"], e["args"].get("node", "")) for e in dev})
    for n in names[:12]:
        print("     event", n)
    total = {}
    for e in dev:
        total[e["name"]] = total.get(e["name"], 0) + e["dur"]
    print("     device us per kernel (all calls):",
          ", ".join("%s %.1f" % kv for kv in sorted(total.items(), key=lambda kv: -kv[1])[:8]))
    print("SUMMARY: %d failed%s" % (len(fails), (": " + ", ".join(fails)) if fails else ""))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
