#!/usr/bin/env python3
"""Independent NumPy reference for the Gemm-Relu-Gemm-SoftmaxCrossEntropyLoss MLP that
ONNX Runtime's training example (test data training_api/) and odt's default model
(examples/default/) train, and for ORT's optimizers.

Run with Debian's interpreter (numpy, flatbuffers): /usr/bin/python3.

Model (PyTorch Linear layout; weights are [out, in]):
    z1 = x @ fc1.weight^T + fc1.bias      (Gemm transB=1)
    h  = relu(z1)                          (Relu)
    y  = h @ fc2.weight^T + fc2.bias      (Gemm transB=1)
    loss, log_prob = SoftmaxCrossEntropyLoss(y, labels, reduction)

Dtypes:
  * forward_loss and gradients compute in float64 from whatever they are given
    (float32 parameters are widened exactly) and return float64 values. A float32
    implementation (ORT, odt) should agree to ~1e-6 relative.
  * adamw_step and sgd_step compute in float32, operation by operation in the order
    of ORT's CPU kernels (orttraining/training_ops/cpu/optimizer/adamw/adamw.cc), so
    that the optimizer reference mirrors a float32 implementation: Adam's update
    m / (sqrt(v) + eps) with eps = 1e-6 amplifies tiny differences in small moments,
    and a float64 optimizer would drift from any float32 runtime over many steps.
    They return float32 arrays.
  * train() keeps parameters and moments in float32 between steps (as a runtime
    does), computing each step's loss and gradients in float64 and rounding the
    gradients to float32 before the optimizer sees them.

CLI (prints one JSON object per line):
    mlp_reference.py --checkpoint CKPT --input X.npy --labels L.npy --steps N --lr LR
        [--optimizer adamw|sgd] [--adam-mode 1] [--alpha 0.9] [--beta 0.999]
        [--eps 1e-6] [--weight-decay 0] [--no-correct-bias] [--save-checkpoint OUT]
      -> {"step": i, "loss": value} for i = 1..N, the loss of the i-th TrainStep,
         computed before the i-th OptimizerStep (ORT's TrainStep, OptimizerStep,
         LazyResetGrad loop).
    mlp_reference.py --checkpoint CKPT --input X.npy --labels L.npy --eval
      -> {"loss": value}
"""

import argparse
import json
import os
import sys

import numpy as np

PARAM_NAMES = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")


# ---------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------

def _f64(params):
    return {k: np.asarray(params[k], dtype=np.float64) for k in PARAM_NAMES}


def _forward(p, x):
    x = np.asarray(x, dtype=np.float64)
    z1 = x @ p["fc1.weight"].T + p["fc1.bias"]
    h = np.maximum(z1, 0.0)
    y = h @ p["fc2.weight"].T + p["fc2.bias"]
    return x, z1, h, y


def _log_softmax(y):
    m = np.max(y, axis=1, keepdims=True)
    s = y - m
    return s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))


def forward_loss(params, x, labels, reduction="mean"):
    """Returns (loss, log_prob), float64. loss is a scalar for mean/sum and a [N]
    vector for reduction "none"; log_prob is [N, C], as SoftmaxCrossEntropyLoss's
    second output."""
    p = _f64(params)
    _, _, _, y = _forward(p, x)
    log_prob = _log_softmax(y)
    labels = np.asarray(labels).astype(np.int64).reshape(-1)
    nll = -log_prob[np.arange(labels.size), labels]
    if reduction == "mean":
        loss = np.mean(nll)
    elif reduction == "sum":
        loss = np.sum(nll)
    elif reduction == "none":
        loss = nll
    else:
        raise ValueError("reduction must be mean, sum or none, not %r" % reduction)
    return loss, log_prob


def logits(params, x):
    """The model output (float64), before the loss."""
    return _forward(_f64(params), x)[3]


def loss_and_gradients(params, x, labels, reduction="mean"):
    """(loss, {name: gradient}) by analytic backprop, float64, for mean or sum."""
    p = _f64(params)
    x, z1, h, y = _forward(p, x)
    log_prob = _log_softmax(y)
    labels = np.asarray(labels).astype(np.int64).reshape(-1)
    n = labels.size
    nll = -log_prob[np.arange(n), labels]
    # d loss / d y: softmax - onehot (SoftmaxCrossEntropyLossGrad), / N for mean.
    dy = np.exp(log_prob)
    dy[np.arange(n), labels] -= 1.0
    if reduction == "mean":
        loss = np.mean(nll)
        dy /= n
    elif reduction == "sum":
        loss = np.sum(nll)
    else:
        raise ValueError("gradients support reduction mean or sum, not %r" % reduction)
    g = {}
    g["fc2.weight"] = dy.T @ h                 # Gemm(transA=1, beta=0)
    g["fc2.bias"] = dy.sum(axis=0)             # ReduceSum(axes=[0], keepdims=0)
    dh = dy @ p["fc2.weight"]                  # Gemm
    dz1 = dh * (h > 0)                         # ReluGrad(dY, relu output)
    g["fc1.weight"] = dz1.T @ x
    g["fc1.bias"] = dz1.sum(axis=0)
    return loss, g


def gradients(params, x, labels, reduction="mean"):
    """{name: d loss / d param}, float64."""
    return loss_and_gradients(params, x, labels, reduction)[1]


# ---------------------------------------------------------------------------
# Optimizers (float32, mirroring ORT's CPU kernels)
# ---------------------------------------------------------------------------

def adamw_step(params, grads, m1, m2, step, lr, alpha=0.9, beta=0.999, eps=1e-6,
               weight_decay=0.0, correct_bias=True, adam_mode=1):
    """One ORT AdamWOptimizer step (docs/ORT-FACTS.md section 2) over dicts of
    arrays keyed by parameter name. step is the value ORT feeds (state.step + 1,
    so 1 on the first step). Returns (params, m1, m2) as new float32 dicts; the
    inputs are not modified.

    c = correct_bias; a = 1 - alpha^t, b = 1 - beta^t (1 when c = 0);
    mode 0 (PyTorch):      w -= lr*wd*w; m = alpha m + (1-alpha) g;
                           v = beta v + (1-beta) g^2; w -= lr m / (a (sqrt(v/b) + eps))
    mode 1 (HuggingFace):  m, v as above; w -= (lr sqrt(b)/a) m / (sqrt(v) + eps);
                           w -= lr*wd*w
    """
    f = np.float32
    lr, alpha, beta, eps, wd = f(lr), f(alpha), f(beta), f(eps), f(weight_decay)
    one = f(1.0)
    ac = bc = one
    lr_c = lr
    if correct_bias:
        # ORT: 1.f - static_cast<float>(std::pow(alpha_, step)): pow in double.
        ac = one - f(float(alpha) ** int(step))
        bc = one - f(float(beta) ** int(step))
        lr_c = lr * (f(np.sqrt(bc)) / ac)
    new_p, new_m1, new_m2 = {}, {}, {}
    with np.errstate(over="ignore", invalid="ignore"):
        for name in params:
            w = np.array(params[name], dtype=np.float32)
            g = np.asarray(grads[name], dtype=np.float32)
            m = np.asarray(m1[name], dtype=np.float32)
            v = np.asarray(m2[name], dtype=np.float32)
            if adam_mode == 0:
                w = w - (w * lr) * wd
                m = alpha * m + (one - alpha) * g
                v = beta * v + ((one - beta) * g) * g
                denom = np.sqrt(v / bc) + eps
                w = w - (lr * m) / (ac * denom)
            elif adam_mode == 1:
                m = alpha * m + (one - alpha) * g
                v = beta * v + ((one - beta) * g) * g
                denom = np.sqrt(v) + eps
                w = w - (lr_c * m) / denom
                w = w - (lr * wd) * w
            else:
                raise ValueError("adam_mode must be 0 or 1, not %r" % adam_mode)
            new_p[name], new_m1[name], new_m2[name] = (w.astype(np.float32), m.astype(np.float32),
                                                       v.astype(np.float32))
    return new_p, new_m1, new_m2


def sgd_step(params, grads, lr):
    """ORT SGDOptimizerV2: w -= lr * g, float32. Returns a new dict."""
    lr = np.float32(lr)
    return {k: (np.asarray(params[k], np.float32) - lr * np.asarray(grads[k], np.float32))
            .astype(np.float32) for k in params}


# ---------------------------------------------------------------------------
# Training loop
# ---------------------------------------------------------------------------

def train_state(params, x, labels, steps, lr, optimizer="adamw", m1=None, m2=None,
                start_step=0, reduction="mean", **adamw_kwargs):
    """Runs `steps` iterations of ORT's loop {TrainStep (lazy reset: gradients
    overwrite), OptimizerStep with step = start_step + i, LazyResetGrad}.
    Returns {"losses": [...], "params", "m1", "m2", "step"}; losses[i] is the loss
    of the (i+1)-th TrainStep, before its OptimizerStep."""
    p = {k: np.asarray(params[k], dtype=np.float32).copy() for k in PARAM_NAMES}
    if m1 is None:
        m1 = {k: np.zeros_like(v) for k, v in p.items()}
    if m2 is None:
        m2 = {k: np.zeros_like(v) for k, v in p.items()}
    m1 = {k: np.asarray(m1[k], np.float32) for k in PARAM_NAMES}
    m2 = {k: np.asarray(m2[k], np.float32) for k in PARAM_NAMES}
    losses = []
    step = int(start_step)
    for _ in range(int(steps)):
        loss, g = loss_and_gradients(p, x, labels, reduction)
        losses.append(float(loss))
        g32 = {k: v.astype(np.float32) for k, v in g.items()}
        step += 1
        if optimizer == "adamw":
            p, m1, m2 = adamw_step(p, g32, m1, m2, step, lr, **adamw_kwargs)
        elif optimizer == "sgd":
            p = sgd_step(p, g32, lr)
        else:
            raise ValueError("optimizer must be adamw or sgd, not %r" % optimizer)
    return {"losses": losses, "params": p, "m1": m1, "m2": m2, "step": step}


def train(params, x, labels, steps, lr, **kwargs):
    """The list of losses of train_state (loss before each update)."""
    return train_state(params, x, labels, steps, lr, **kwargs)["losses"]


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def _odtc():
    here = os.path.dirname(os.path.abspath(__file__))
    scripts = os.path.normpath(os.path.join(here, "..", "..", "scripts"))
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    import odtc
    return odtc


def load_checkpoint_params(path):
    """(params dict, optimizer group dict or None) from an ODTC checkpoint."""
    ckpt = _odtc().read_checkpoint(path)
    if ckpt["is_nominal"]:
        raise ValueError("%s is a nominal checkpoint: it holds no parameter values" % path)
    params = {p["name"]: p["data"] for p in ckpt["params"]}
    missing = [k for k in PARAM_NAMES if k not in params]
    if missing:
        raise ValueError("%s lacks parameters %s" % (path, ", ".join(missing)))
    group = ckpt["optimizer_groups"][0] if ckpt["optimizer_groups"] else None
    return params, group


def main(argv):
    ap = argparse.ArgumentParser(description="NumPy reference for the MLP and ORT's optimizers")
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--input", required=True, help=".npy, float [N, in]")
    ap.add_argument("--labels", required=True, help=".npy, integer [N]")
    ap.add_argument("--eval", action="store_true", help="print the loss only")
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--optimizer", choices=("adamw", "sgd"), default="adamw")
    ap.add_argument("--adam-mode", type=int, default=1)
    ap.add_argument("--alpha", type=float, default=0.9)
    ap.add_argument("--beta", type=float, default=0.999)
    ap.add_argument("--eps", type=float, default=1e-6)
    ap.add_argument("--weight-decay", type=float, default=0.0)
    ap.add_argument("--no-correct-bias", action="store_true")
    ap.add_argument("--reduction", choices=("mean", "sum"), default="mean")
    ap.add_argument("--save-checkpoint", help="write the trained parameters and AdamW "
                    "state here (ORT layout: group0, momentum0/momentum1)")
    args = ap.parse_args(argv)

    params, group = load_checkpoint_params(args.checkpoint)
    x = np.load(args.input)
    labels = np.load(args.labels)
    if args.eval:
        loss, _ = forward_loss(params, x, labels, args.reduction)
        print(json.dumps({"loss": float(loss)}))
        return 0

    m1 = m2 = None
    start = 0
    if group is not None and args.optimizer == "adamw":
        st = group["states"]
        if all(k in st for k in PARAM_NAMES):
            m1 = {k: st[k]["momentum0"] for k in PARAM_NAMES}
            m2 = {k: st[k]["momentum1"] for k in PARAM_NAMES}
            start = group["step"]
    kw = {}
    if args.optimizer == "adamw":
        kw = dict(alpha=args.alpha, beta=args.beta, eps=args.eps,
                  weight_decay=args.weight_decay, correct_bias=not args.no_correct_bias,
                  adam_mode=args.adam_mode)
    res = train_state(params, x, labels, args.steps, args.lr, optimizer=args.optimizer,
                      m1=m1, m2=m2, start_step=start, reduction=args.reduction, **kw)
    for i, loss in enumerate(res["losses"]):
        print(json.dumps({"step": i + 1, "loss": loss}))
    if args.save_checkpoint:
        odtc = _odtc()
        plist = [(k, res["params"][k], True) for k in PARAM_NAMES]
        groups = None
        if args.optimizer == "adamw":
            groups = [{"group_name": "group0", "step": res["step"],
                       "initial_learning_rate": args.lr,
                       "states": {k: {"momentum0": res["m1"][k], "momentum1": res["m2"][k]}
                                  for k in PARAM_NAMES}}]
        odtc.write_checkpoint(args.save_checkpoint, plist, optimizer_groups=groups)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
