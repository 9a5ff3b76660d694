"""Two small CNNs with three deepenable blocks each, and Net2Net's DeeperNet on them.

A model is a list of blocks (each an nn.Sequential ending in a ReLU, or a pooling after it, so its
output is non-negative) and a linear head. Deepening block i appends to it an identity layer (a
Linear set to the identity, or a 3x3 "same" Conv whose kernel is the identity), a BatchNorm set to
undo its own normalisation, and a ReLU: the network computes the same function right after.
"""

import torch
from torch import nn

from . import AdaptError

NUM_BLOCKS = 3
NOTHING = NUM_BLOCKS  # the fourth action: leave the model as it is
NUM_ACTIONS = NUM_BLOCKS + 1


def _conv_block(c_in, c_out, stride=1, pool=False):
    layers = [nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1), nn.BatchNorm2d(c_out), nn.ReLU()]
    if pool:
        layers.append(nn.MaxPool2d(2))
    return nn.Sequential(*layers)


def _linear_block(n_in, n_out):
    return nn.Sequential(nn.Linear(n_in, n_out), nn.BatchNorm1d(n_out), nn.ReLU())


def _cnn1(channels, size, num_classes):
    """Two conv blocks (the second pools) and a linear block: the larger model."""
    blocks = [_conv_block(channels, 4), _conv_block(4, 8, pool=True), _linear_block(8 * (size // 2) ** 2, 16)]
    return blocks, nn.Linear(16, num_classes)


def _cnn2(channels, size, num_classes):
    """One strided conv block and two narrow linear blocks: the weaker model."""
    half = (size + 1) // 2
    blocks = [_conv_block(channels, 2, stride=2), _linear_block(2 * half * half, 8), _linear_block(8, 8)]
    return blocks, nn.Linear(8, num_classes)


ARCHITECTURES = {"cnn1": _cnn1, "cnn2": _cnn2}


class BlockNet(nn.Module):
    """Blocks applied in order (flattened before the first linear block), then the head."""

    def __init__(self, name, input_shape, num_classes):
        super().__init__()
        if name not in ARCHITECTURES:
            raise AdaptError(f"--model: unknown model '{name}' (known: {', '.join(sorted(ARCHITECTURES))})")
        channels, size, _ = input_shape
        blocks, head = ARCHITECTURES[name](channels, size, num_classes)
        self.name = name
        self.input_shape = tuple(input_shape)
        self.blocks = nn.ModuleList(blocks)
        self.head = head

    def forward(self, x):
        for block in self.blocks:
            if isinstance(block[0], nn.Linear) and x.dim() > 2:
                x = torch.flatten(x, 1)
            x = block(x)
        return self.head(torch.flatten(x, 1))

    def output_of_block(self, x, index):
        """What block `index` emits for input x (the input of a layer inserted after it)."""
        for block in self.blocks[:index + 1]:
            if isinstance(block[0], nn.Linear) and x.dim() > 2:
                x = torch.flatten(x, 1)
            x = block(x)
        return x

    def layers(self):
        """Every leaf layer in forward order."""
        return [m for block in self.blocks for m in block] + [self.head]


def describe(layer):
    """A layer's description: its type and shape (what the agent's encoder embeds)."""
    if isinstance(layer, nn.Conv2d):
        return f"Conv2d({layer.in_channels},{layer.out_channels},k{layer.kernel_size[0]},s{layer.stride[0]})"
    if isinstance(layer, nn.Linear):
        return f"Linear({layer.in_features},{layer.out_features})"
    if isinstance(layer, (nn.BatchNorm1d, nn.BatchNorm2d)):
        return f"{type(layer).__name__}({layer.num_features})"
    if isinstance(layer, nn.MaxPool2d):
        return f"MaxPool2d({layer.kernel_size})"
    return type(layer).__name__


def describe_model(model):
    return [describe(layer) for layer in model.layers()]


def multiply_adds(model):
    """Multiply-accumulates of one forward pass of one sample: what an epoch's simulated time scales with."""
    total = 0
    x = torch.zeros((1,) + model.input_shape, device=next(model.parameters()).device)
    hooks = []

    def count(layer, _inputs, output):
        nonlocal total
        if isinstance(layer, nn.Conv2d):
            per_output = layer.in_channels // layer.groups * layer.kernel_size[0] * layer.kernel_size[1]
            total += output.numel() * per_output
        elif isinstance(layer, nn.Linear):
            total += layer.in_features * layer.out_features

    for layer in model.layers():
        hooks.append(layer.register_forward_hook(count))
    was_training = model.training
    model.eval()
    with torch.no_grad():
        model(x)
    model.train(was_training)
    for hook in hooks:
        hook.remove()
    return total


def make_model(name, input_shape, num_classes, seed):
    """A fresh model whose initial weights depend only on seed."""
    rng_state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    model = BlockNet(name, input_shape, num_classes)
    torch.random.set_rng_state(rng_state)
    return model


def _identity_layer(block_output):
    """A Linear or a same-padded 3x3 Conv that maps its input to itself."""
    width = block_output.shape[1]
    with torch.no_grad():
        if block_output.dim() == 2:
            layer = nn.Linear(width, width)
            layer.weight.copy_(torch.eye(width))
        else:
            layer = nn.Conv2d(width, width, 3, padding=1)
            layer.weight.zero_()
            layer.weight[range(width), range(width), 1, 1] = 1.0
        layer.bias.zero_()
    return layer


def _undoing_batchnorm(block_output):
    """A BatchNorm whose running statistics are those of block_output, scaled and shifted back:
    in eval mode it is the identity, in training mode nearly so (batch statistics ~ running ones)."""
    width = block_output.shape[1]
    dims = [0] if block_output.dim() == 2 else [0, 2, 3]
    norm = nn.BatchNorm1d(width) if block_output.dim() == 2 else nn.BatchNorm2d(width)
    mean = block_output.mean(dim=dims)
    var = block_output.var(dim=dims, unbiased=True)
    with torch.no_grad():
        norm.running_mean.copy_(mean)
        norm.running_var.copy_(var)
        norm.weight.copy_(torch.sqrt(var + norm.eps))
        norm.bias.copy_(mean)
    return norm


def deepen(model, block_index, probe_x):
    """Net2Net DeeperNet: insert identity layer + BatchNorm + ReLU after block `block_index`.

    probe_x (a fixed batch of training inputs) gives the statistics the BatchNorm undoes, so the
    result depends only on the model and probe_x. The new layers live on the model's device.
    """
    if not 0 <= block_index < len(model.blocks):
        raise AdaptError(f"deepen: block {block_index} is not in 0..{len(model.blocks) - 1}")
    was_training = model.training
    model.eval()
    with torch.no_grad():
        output = model.output_of_block(probe_x, block_index)
    model.train(was_training)
    device = output.device
    added = [_identity_layer(output).to(device), _undoing_batchnorm(output).to(device), nn.ReLU()]
    model.blocks[block_index] = nn.Sequential(*model.blocks[block_index], *added)
    model.train(was_training)
    return model
