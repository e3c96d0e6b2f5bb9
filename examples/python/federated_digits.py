"""Federated learning with Flower: a server and N clients, separate processes
on loopback, each client training its shard of scikit-learn's digits through
odt and exchanging its parameters as one flat buffer
(Module.get_contiguous_parameters / copy_buffer_to_parameters); the server
averages them (FedAvg) and measures the global model on held-out images
after every round.

    federated_digits.py run DATA_DIR WORK_DIR [--clients 4] [--rounds 5]
        [--local-epochs 2] [--result FILE.json]

DATA_DIR is what examples/digits/make_digits.py writes. `run` generates the
artifacts (odt's generate-artifacts), compiles them once (the clients load
the compiled folder, as a device would: no compiler on the device), starts
the server and the clients and prints the global accuracy per round.
Flower's legacy gRPC deployment (flwr.server.start_server /
flwr.client.start_client) keeps each party a plain process.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import time

import numpy as np


def load(data_dir, name):
    return np.load(os.path.join(data_dir, name + ".npy"))


def make_module(work):
    """A module over the compiled model and a fresh copy of the checkpoint."""
    from odt.training import api
    state = api.CheckpointState.load_checkpoint(os.path.join(work, "artifacts", "checkpoint"))
    compiled = os.path.join(work, "compiled")
    module = api.Module(compiled, state)
    optimizer = api.Optimizer(compiled, module)
    return state, module, optimizer


def evaluate(module, pixels, labels):
    module.eval()
    loss, logits = module(pixels, labels)
    module.train()
    return float(loss), float((logits.argmax(axis=1) == labels).mean())


def serve(args):
    import flwr
    from flwr.common import ndarrays_to_parameters

    _, module, _ = make_module(args.work)
    test_x, test_y = load(args.data, "test_pixels"), load(args.data, "test_labels")
    rounds = []

    def central_evaluation(server_round, parameters, config):
        module.copy_buffer_to_parameters(parameters[0])
        loss, accuracy = evaluate(module, test_x, test_y)
        rounds.append({"round": server_round, "loss": loss, "accuracy": accuracy})
        print(f"server: round {server_round}: global model test loss {loss:.4f}, "
              f"accuracy {100 * accuracy:.1f}%", flush=True)
        return loss, {"accuracy": accuracy}

    initial = module.get_contiguous_parameters().numpy().copy()
    strategy = flwr.server.strategy.FedAvg(
        fraction_fit=1.0, fraction_evaluate=0.0, min_fit_clients=args.clients,
        min_available_clients=args.clients, evaluate_fn=central_evaluation,
        initial_parameters=ndarrays_to_parameters([initial]))
    flwr.server.start_server(server_address=args.address, strategy=strategy,
                             config=flwr.server.ServerConfig(num_rounds=args.rounds))
    with open(args.result, "w") as f:
        json.dump({"rounds": rounds}, f)


def client(args):
    import flwr

    _, module, optimizer = make_module(args.work)
    optimizer.set_learning_rate(args.lr)
    x, y = load(args.data, "train_pixels"), load(args.data, "train_labels")
    shard = np.random.default_rng(0).permutation(len(x))[args.index::args.clients]
    x, y = x[shard], y[shard]
    rng = np.random.default_rng(100 + args.index)

    class DigitsClient(flwr.client.NumPyClient):
        def get_parameters(self, config):
            return [module.get_contiguous_parameters().numpy()]

        def fit(self, parameters, config):
            module.copy_buffer_to_parameters(parameters[0])
            losses = []
            for _ in range(args.local_epochs):
                order = rng.permutation(len(x))
                for first in range(0, len(order), 32):
                    batch = order[first:first + 32]
                    loss, _ = module(x[batch], y[batch])
                    optimizer.step()
                    module.lazy_reset_grad()
                    losses.append(float(loss))
            print(f"client {args.index}: {len(x)} images, mean loss {np.mean(losses):.4f}",
                  flush=True)
            return ([module.get_contiguous_parameters().numpy()], len(x),
                    {"loss": float(np.mean(losses))})

    flwr.client.start_client(server_address=args.address, client=DigitsClient().to_client(),
                             insecure=True, max_retries=50, max_wait_time=60)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(args):
    import odt
    from odt.training import artifacts

    os.makedirs(args.work, exist_ok=True)
    artifact_dir = os.path.join(args.work, "artifacts")
    artifacts.generate_artifacts(os.path.join(args.data, "forward.onnx"),
                                 requires_grad=["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"],
                                 loss=artifacts.LossType.CrossEntropyLoss,
                                 optimizer=artifacts.OptimType.AdamW,
                                 artifact_directory=artifact_dir,
                                 additional_output_names=["logits"])
    odt.compile(artifact_dir, output_dir=os.path.join(args.work, "compiled"))
    address = f"127.0.0.1:{free_port()}"
    result = args.result or os.path.join(args.work, "federated.json")
    common = [args.data, args.work, "--address", address, "--clients", str(args.clients),
              "--rounds", str(args.rounds), "--local-epochs", str(args.local_epochs),
              "--lr", str(args.lr)]
    me = os.path.abspath(__file__)
    start = time.perf_counter()
    server = subprocess.Popen([sys.executable, me, "serve", *common, "--result", result])
    time.sleep(2)
    clients = [subprocess.Popen([sys.executable, me, "client", *common, "--index", str(i)])
               for i in range(args.clients)]
    try:
        server_status = server.wait(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        server.kill()
        for c in clients:
            c.kill()
        sys.exit(f"the federated run took longer than {args.timeout} s")
    client_status = [c.wait(timeout=60) for c in clients]
    if server_status != 0 or any(client_status):
        sys.exit(f"a process failed: server {server_status}, clients {client_status}")
    with open(result) as f:
        rounds = json.load(f)["rounds"]
    print(f"{args.clients} clients, {args.rounds} rounds in {time.perf_counter() - start:.1f} s")
    for r in rounds:
        print(f"round {r['round']}: accuracy {100 * r['accuracy']:.1f}%")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["run", "serve", "client"])
    parser.add_argument("data")
    parser.add_argument("work")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--local-epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--address", default="127.0.0.1:8080")
    parser.add_argument("--index", type=int, default=0)
    parser.add_argument("--result")
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    {"run": run, "serve": serve, "client": client}[args.mode](args)


if __name__ == "__main__":
    main()
