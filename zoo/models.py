"""The real-model zoo: small models of the kinds people train on devices,
written in PyTorch as users write them.

Each entry of MODELS says how to build the module (seeded), what its inputs
and targets look like, and which of generate-artifacts' losses trains it
(with the PyTorch loss that is the same function). zoo/check.py exports each
model with both of PyTorch's exporters and trains it in odt, PyTorch and
ONNX Runtime 1.19.2.

The models are small enough for CI (a few hundred thousand parameters at
most) but keep the structure of the real ones: the same ops, the same export
patterns (attention masks, tied embeddings, recurrent layers, BatchNorm in
training mode), the same shapes of problems.
"""

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 0


# --------------------------------------------------------------------------
# Convolutional nets
# --------------------------------------------------------------------------

def conv_bn(cin, cout, kernel, stride=1, groups=1, act=nn.ReLU6):
    layers = [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups,
                        bias=False),
              nn.BatchNorm2d(cout)]
    if act is not None:
        layers.append(act())
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expansion, 3x3 depthwise, 1x1 projection,
    residual when the shape allows."""

    def __init__(self, cin, cout, stride, expand, act=nn.ReLU6):
        super().__init__()
        hidden = cin * expand
        layers = []
        if expand != 1:
            layers.append(conv_bn(cin, hidden, 1, act=act))
        layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden, act=act),
                   conv_bn(hidden, cout, 1, act=None)]
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.block(x)
        return x + y if self.residual else y


class MobileNetV2(nn.Module):
    """MobileNetV2 on 32x32 images, width reduced: depthwise convolutions,
    ReLU6, inverted residuals, BatchNorm in training mode."""

    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(3, 16, 3, 2),
            InvertedResidual(16, 16, 1, 1),
            InvertedResidual(16, 24, 2, 4),
            InvertedResidual(24, 24, 1, 4),
            InvertedResidual(24, 32, 2, 4),
            InvertedResidual(32, 32, 1, 4),
            conv_bn(32, 128, 1))
        self.classifier = nn.Linear(128, classes)

    def forward(self, x):
        x = self.features(x)
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class SqueezeExcite(nn.Module):
    def __init__(self, channels, reduced):
        super().__init__()
        self.reduce = nn.Conv2d(channels, reduced, 1)
        self.expand = nn.Conv2d(reduced, channels, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        s = F.hardsigmoid(self.expand(F.relu(self.reduce(s))))
        return x * s


class MobileNetV3Block(nn.Module):
    """MobileNetV3's bneck: expansion, depthwise, squeeze-excite with
    Hardsigmoid, Hardswish activations."""

    def __init__(self, cin, hidden, cout, kernel, stride, se, act):
        super().__init__()
        self.expand = conv_bn(cin, hidden, 1, act=act)
        self.depthwise = conv_bn(hidden, hidden, kernel, stride, groups=hidden,
                                 act=act)
        self.se = SqueezeExcite(hidden, max(8, hidden // 4)) if se else None
        self.project = conv_bn(hidden, cout, 1, act=None)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.depthwise(self.expand(x))
        if self.se is not None:
            y = self.se(y)
        y = self.project(y)
        return x + y if self.residual else y


class MobileNetV3(nn.Module):
    """MobileNetV3-small style on 32x32 images."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = conv_bn(3, 16, 3, 2, act=nn.Hardswish)
        self.blocks = nn.Sequential(
            MobileNetV3Block(16, 32, 16, 3, 2, True, nn.ReLU),
            MobileNetV3Block(16, 48, 24, 3, 1, False, nn.ReLU),
            MobileNetV3Block(24, 64, 24, 5, 1, True, nn.Hardswish),
            MobileNetV3Block(24, 96, 32, 5, 2, True, nn.Hardswish))
        self.last = conv_bn(32, 96, 1, act=nn.Hardswish)
        self.head = nn.Sequential(nn.Linear(96, 128), nn.Hardswish(),
                                  nn.Linear(128, classes))

    def forward(self, x):
        x = self.last(self.blocks(self.stem(x)))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class EfficientNetLite(nn.Module):
    """EfficientNet-style MBConv blocks with SiLU (swish) activations."""

    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(3, 16, 3, 2, act=nn.SiLU),
            InvertedResidual(16, 16, 1, 1, act=nn.SiLU),
            InvertedResidual(16, 24, 2, 6, act=nn.SiLU),
            InvertedResidual(24, 24, 1, 6, act=nn.SiLU),
            conv_bn(24, 96, 1, act=nn.SiLU))
        self.classifier = nn.Linear(96, classes)

    def forward(self, x):
        x = self.features(x)
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.shortcut is None else self.shortcut(x)))


class ResNet18Cifar(nn.Module):
    """ResNet-18 layout (4 stages of 2 basic blocks) for 32x32 images, at
    a quarter of the width (16-32-64-128 channels)."""

    def __init__(self, classes=10, width=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU())
        stages, cin = [], width
        for i, stride in enumerate((1, 2, 2, 2)):
            cout = width * 2 ** i
            stages += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.stages = nn.Sequential(*stages)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class DSCNN(nn.Module):
    """Depthwise-separable CNN keyword spotter (Hello Edge's DS-CNN) on
    49x10 MFCC frames."""

    def __init__(self, classes=12, channels=64):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(1, channels, (10, 4), (2, 2), (5, 1), bias=False),
            nn.BatchNorm2d(channels), nn.ReLU())
        blocks = []
        for _ in range(4):
            blocks += [nn.Conv2d(channels, channels, 3, 1, 1, groups=channels,
                                 bias=False),
                       nn.BatchNorm2d(channels), nn.ReLU(),
                       nn.Conv2d(channels, channels, 1, bias=False),
                       nn.BatchNorm2d(channels), nn.ReLU()]
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class NormNet(nn.Module):
    """A small CNN with GroupNorm, InstanceNorm and PReLU (the normalizations
    people use at batch sizes too small for BatchNorm)."""

    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.norm1 = nn.GroupNorm(4, 16)
        self.act1 = nn.PReLU(16)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.norm2 = nn.InstanceNorm2d(32, affine=True)
        self.act2 = nn.PReLU()
        self.conv3 = nn.Conv2d(32, 32, 3, stride=2, padding=1)
        self.norm3 = nn.GroupNorm(8, 32)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        x = self.act1(self.norm1(self.conv1(x)))
        x = self.act2(self.norm2(self.conv2(x)))
        x = F.relu(self.norm3(self.conv3(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class Audio1D(nn.Module):
    """A 1-D convolutional audio classifier on raw waveforms (M5-style):
    Conv1d, BatchNorm1d, MaxPool1d, global average pooling."""

    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 16, 80, stride=8), nn.BatchNorm1d(16), nn.ReLU(),
            nn.MaxPool1d(4),
            nn.Conv1d(16, 32, 3), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(32, 32, 3), nn.BatchNorm1d(32), nn.ReLU())
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        x = self.features(x)
        return self.fc(torch.mean(x, dim=-1))


class UNet(nn.Module):
    """A two-level UNet for per-pixel classes: MaxPool down, ConvTranspose
    and nearest/bilinear upsampling up, skip connections concatenated."""

    def __init__(self, classes=4):
        super().__init__()

        def double(cin, cout):
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout), nn.ReLU(),
                nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                nn.BatchNorm2d(cout), nn.ReLU())

        self.enc1 = double(3, 16)
        self.enc2 = double(16, 32)
        self.bottom = double(32, 64)
        self.up2 = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.dec2 = double(64, 32)
        self.reduce1 = nn.Conv2d(32, 16, 1)
        self.dec1 = double(32, 16)
        self.refine = nn.Conv2d(16, 16, 3, padding=1)
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        b = self.bottom(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], dim=1))
        up1 = F.interpolate(self.reduce1(d2), scale_factor=2, mode="nearest")
        d1 = self.dec1(torch.cat([up1, e1], dim=1))
        # A bilinear round trip (down and up again) on the way out.
        small = F.interpolate(d1, scale_factor=0.5, mode="bilinear",
                              align_corners=False)
        d1 = d1 + F.interpolate(self.refine(small), scale_factor=2,
                                mode="bilinear", align_corners=False)
        return self.head(d1)


class ViT(nn.Module):
    """A small vision transformer: 4x4 patch convolution, class token,
    learned positional embedding, pre-norm encoder layers."""

    def __init__(self, classes=10, dim=64, depth=2, heads=4, image=32, patch=4):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch, patch)
        tokens = (image // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, tokens + 1, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 2, dropout=0.0,
                                           activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth,
                                             enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        cls = self.cls.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos
        x = self.encoder(x)
        return self.head(self.norm(x[:, 0]))


# --------------------------------------------------------------------------
# Transformers on tokens
# --------------------------------------------------------------------------

class BertSelfAttention(nn.Module):
    def __init__(self, dim, heads, dropout):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.output = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, additive_mask):
        b, s, d = x.shape
        h = self.heads

        def split(t):
            return t.view(b, s, h, d // h).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // h) + additive_mask
        probs = self.dropout(torch.softmax(scores, dim=-1))
        context = (probs @ v).transpose(1, 2).reshape(b, s, d)
        return self.output(context)


class BertLayer(nn.Module):
    """A post-norm BERT layer as Hugging Face writes it."""

    def __init__(self, dim, heads, ffn, dropout):
        super().__init__()
        self.attention = BertSelfAttention(dim, heads, dropout)
        self.norm1 = nn.LayerNorm(dim, eps=1e-12)
        self.intermediate = nn.Linear(dim, ffn)
        self.out = nn.Linear(ffn, dim)
        self.norm2 = nn.LayerNorm(dim, eps=1e-12)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, additive_mask):
        x = self.norm1(x + self.dropout(self.attention(x, additive_mask)))
        y = self.out(F.gelu(self.intermediate(x)))
        return self.norm2(x + self.dropout(y))


class BertEncoder(nn.Module):
    def __init__(self, vocab, dim, heads, ffn, layers, max_len, dropout):
        super().__init__()
        self.word = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(max_len, dim)
        self.norm = nn.LayerNorm(dim, eps=1e-12)
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.ModuleList(
            BertLayer(dim, heads, ffn, dropout) for _ in range(layers))
        # BERT's initialization of the embeddings (std 0.02): the masked-LM
        # head reuses the word embedding as its decoder.
        for embedding in (self.word, self.position):
            nn.init.normal_(embedding.weight, std=0.02)

    def forward(self, input_ids, attention_mask):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        x = self.word(input_ids) + self.position(positions)[None]
        x = self.dropout(self.norm(x))
        # Hugging Face's extended mask: 0 where attended, a large negative
        # number where padded.
        additive = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, additive)
        return x


class BertClassifier(nn.Module):
    """A DistilBERT-sized-down encoder with a [CLS] classification head."""

    def __init__(self, classes=4, vocab=1000, dim=64, dropout=0.1):
        super().__init__()
        self.encoder = BertEncoder(vocab, dim, 4, 4 * dim, 2, 64, dropout)
        self.pooler = nn.Linear(dim, dim)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(dim, classes)

    def forward(self, input_ids, attention_mask):
        x = self.encoder(input_ids, attention_mask)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return self.classifier(self.dropout(pooled))


class BertMaskedLM(nn.Module):
    """The same encoder with a masked-LM head whose decoder is the word
    embedding (tied weights); logits [batch, vocab, tokens], the class dim
    second as cross-entropy takes it."""

    def __init__(self, vocab=1000, dim=64, dropout=0.1):
        super().__init__()
        self.encoder = BertEncoder(vocab, dim, 4, 4 * dim, 2, 64, dropout)
        self.transform = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim, eps=1e-12)
        self.decoder_bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, input_ids, attention_mask):
        x = self.encoder(input_ids, attention_mask)
        x = self.norm(F.gelu(self.transform(x)))
        logits = x @ self.encoder.word.weight.t() + self.decoder_bias
        return logits.transpose(1, 2)


# --------------------------------------------------------------------------
# Recurrent nets
# --------------------------------------------------------------------------

class GRUKeywordSpotter(nn.Module):
    """2-layer bidirectional GRU over 40 MFCC features per frame."""

    def __init__(self, classes=12, features=40, hidden=48):
        super().__init__()
        self.gru = nn.GRU(features, hidden, num_layers=2, batch_first=True,
                          bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.fc(out[:, -1])


class LSTMClassifier(nn.Module):
    """Token ids, embedding, 2-layer bidirectional LSTM, mean over time."""

    def __init__(self, classes=4, vocab=500, dim=32, hidden=48):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, batch_first=True,
                            bidirectional=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, input_ids):
        out, _ = self.lstm(self.embedding(input_ids))
        return self.fc(out.mean(dim=1))


# --------------------------------------------------------------------------
# Dense nets
# --------------------------------------------------------------------------

class Autoencoder(nn.Module):
    """A dense autoencoder on 28x28 images, trained with BCE on logits."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(784, 128), nn.ReLU(),
                                     nn.Linear(128, 32), nn.ReLU())
        self.decoder = nn.Sequential(nn.Linear(32, 128), nn.ReLU(),
                                     nn.Linear(128, 784))

    def forward(self, x):
        return self.decoder(self.encoder(x))


class Recommender(nn.Module):
    """Two-tower click model: a user embedding and the mean of the item
    embeddings of the user's history (an EmbeddingBag), scored by an MLP."""

    def __init__(self, users=200, items=500, dim=16):
        super().__init__()
        self.user = nn.Embedding(users, dim)
        self.history = nn.EmbeddingBag(items, dim, mode="mean")
        self.item = nn.Embedding(items, dim)
        self.mlp = nn.Sequential(nn.Linear(3 * dim, 64), nn.ReLU(),
                                 nn.Linear(64, 1))

    def forward(self, user_ids, history_ids, item_ids):
        x = torch.cat([self.user(user_ids), self.history(history_ids),
                       self.item(item_ids)], dim=1)
        return self.mlp(x)


class TaggedItems(nn.Module):
    """Items described by a variable number of tags: sample b's tags are the
    next lengths[b] entries of one flat list (none for some samples) and the
    last sample takes the rest of the list. Two EmbeddingBags pool them, a
    weighted sum over PyTorch's offsets and a mean over the same bags given
    in CSR form (include_last_offset), for a classifier."""

    def __init__(self, tags=100, dim=16, classes=4):
        super().__init__()
        self.weighted = nn.EmbeddingBag(tags, dim, mode="sum")
        self.mean = nn.EmbeddingBag(tags, dim, mode="mean",
                                    include_last_offset=True)
        self.head = nn.Sequential(nn.Linear(2 * dim, 32), nn.ReLU(),
                                  nn.Linear(32, classes))

    def forward(self, tag_ids, tag_weights, lengths):
        flat = tag_ids.flatten()
        starts = torch.cumsum(lengths, 0)[:-1]
        offsets = torch.cat([torch.zeros_like(lengths[:1]), starts])
        end = torch.full_like(lengths[:1], flat.shape[0])
        weighted = self.weighted(flat, offsets,
                                 per_sample_weights=tag_weights.flatten())
        mean = self.mean(flat, torch.cat([offsets, end]))
        return self.head(torch.cat([weighted, mean], dim=1))


class PaddedBag(nn.Module):
    """An EmbeddingBag whose padding_idx entries count in no bag, on 2-D ids
    (a bag per row) or, with `split`, on the flattened ids with offsets
    (`split` bags per row)."""

    def __init__(self, mode="mean", padding_idx=0, split=1, tags=8, dim=16,
                 classes=3):
        super().__init__()
        self.split = split
        self.bag = nn.EmbeddingBag(tags, dim, mode=mode,
                                   padding_idx=padding_idx)
        self.head = nn.Linear(dim * split, classes)

    def forward(self, ids):
        if self.split == 1:
            return self.head(self.bag(ids))
        flat = ids.flatten()
        offsets = torch.arange(0, flat.shape[0], ids.shape[1] // self.split)
        return self.head(self.bag(flat, offsets).reshape(ids.shape[0], -1))


class TabularNet(nn.Module):
    """A tabular MLP with the smooth activations: Mish, Softplus, SELU,
    CELU."""

    def __init__(self, features=32, classes=5):
        super().__init__()
        self.fc1 = nn.Linear(features, 64)
        self.fc2 = nn.Linear(64, 64)
        self.fc3 = nn.Linear(64, 64)
        self.fc4 = nn.Linear(64, 32)
        self.out = nn.Linear(32, classes)

    def forward(self, x):
        x = F.mish(self.fc1(x))
        x = F.softplus(self.fc2(x))
        x = F.selu(self.fc3(x))
        x = F.celu(self.fc4(x), alpha=0.5)
        return self.out(x)


class CausalAttention(nn.Module):
    """A next-token head over causal self-attention written with
    F.scaled_dot_product_attention(is_causal=True): the exporters build the
    mask from the scores' own indices (Trilu, or a Range comparison)."""

    def __init__(self, vocab=100, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, input_ids):
        b, s = input_ids.shape
        x = self.embed(input_ids)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        split = lambda t: t.reshape(b, s, self.heads, -1).transpose(1, 2)
        y = F.scaled_dot_product_attention(split(q), split(k), split(v),
                                           is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, s, -1)[:, -1])


class TorchEncoder(nn.Module):
    """PyTorch's own nn.TransformerEncoder (2 post-norm layers, ReLU FFN) on
    a sequence of feature vectors, mean-pooled."""

    def __init__(self, features=16, dim=64, classes=10):
        super().__init__()
        self.embed = nn.Linear(features, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, 2 * dim, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2,
                                             enable_nested_tensor=False)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(self.encoder(self.embed(x)).mean(dim=1))


class MiscOps(nn.Module):
    """Ops users reach for in a forward pass: torch.where, cumsum,
    F.normalize, repeat, an adaptive average pool to 2x2 (an AveragePool
    whose gradient is ORT's AveragePoolGrad), concatenation."""

    def __init__(self, features=16, classes=5):
        super().__init__()
        self.fc = nn.Linear(features, features)
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.head = nn.Linear(features + 16, classes)

    def forward(self, x):
        a = self.fc(x)
        a = F.normalize(torch.where(a > 0, a, 0.1 * a).cumsum(dim=1), dim=-1)
        image = x.reshape(-1, 2, 4, 2).repeat(1, 1, 2, 4)
        pooled = F.adaptive_avg_pool2d(self.conv(image), (2, 2)).flatten(1)
        return self.head(torch.cat([a, pooled], dim=1))


class PoolingShapes(nn.Module):
    """Pooling whose gradient sizes are ambiguous from dY alone (an average
    pool with stride 2: several input sizes pool to one output size), a
    ceil_mode MaxPool, count_include_pad=False, and a 'same' reflect-padded
    Conv (TorchScript computes its pads with shape ops), a grouped Conv,
    LeakyReLU and ELU."""

    def __init__(self, classes=10):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding="same", padding_mode="reflect")
        self.c2 = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.max = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.avg = nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)
        self.head = nn.Linear(8 * 4 * 4, classes)

    def forward(self, x):
        x = F.leaky_relu(self.c1(x), 0.1)
        x = F.elu(self.c2(x))
        return self.head(self.avg(self.max(x)).flatten(1))


class DecoderOps(nn.Module):
    """A decoder's ops: ConvTranspose with output_padding (k3 s2 p1 op1),
    bilinear upsampling with align_corners, LayerNorm over [C, H, W], GLU,
    torch.flip (a Slice with step -1), GELU's tanh form."""

    def __init__(self, classes=4):
        super().__init__()
        self.down = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.norm = nn.LayerNorm([8, 8, 8])
        self.up = nn.ConvTranspose2d(8, 8, 3, stride=2, padding=1,
                                     output_padding=1)
        self.gate = nn.Conv2d(8, 8, 1)
        self.out = nn.Conv2d(4, classes, 1)

    def forward(self, x):
        y = self.norm(self.down(x))
        y = F.interpolate(y, scale_factor=2, mode="bilinear",
                          align_corners=True) + self.up(y)
        y = torch.flip(F.glu(self.gate(y), dim=1), dims=[3])
        return self.out(F.gelu(y, approximate="tanh"))


class WeightNormNet(nn.Module):
    """A Linear under weight_norm (parameters g and v, the weight computed
    from them): the dynamo exporter's optimizer folds g * v / ||v|| into one
    constant, which odt then trains in their place and says so."""

    def __init__(self, features=16, classes=5):
        super().__init__()
        self.fc = nn.Linear(features, 32)
        self.normed = nn.utils.parametrizations.weight_norm(nn.Linear(32, 16))
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        return self.head(F.relu(self.normed(F.relu(self.fc(x)))))


class PaddedEmbedding(nn.Module):
    """nn.Embedding with padding_idx=0, mean-pooled over a sequence that
    contains the padding id: PyTorch never sends that row a gradient."""

    def __init__(self, vocab=20, dim=16, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.head = nn.Linear(dim, classes)

    def forward(self, input_ids):
        return self.head(self.embed(input_ids).mean(dim=1))


class ReflectResidual(nn.Module):
    """An image-to-image residual block as generators write it:
    ReflectionPad2d before each 3x3 Conv, InstanceNorm, and a replicate pad
    on the way out (reflect and edge Pads inside the network, so their
    gradients are needed)."""

    def __init__(self, channels=8, classes=3):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 1)
        self.block = nn.Sequential(
            nn.ReflectionPad2d(1), nn.Conv2d(channels, channels, 3),
            nn.InstanceNorm2d(channels, affine=True), nn.ReLU(),
            nn.ReflectionPad2d(1), nn.Conv2d(channels, channels, 3))
        self.out = nn.Sequential(nn.ReplicationPad2d((1, 0, 2, 1)),
                                 nn.Conv2d(channels, classes, (4, 2)))

    def forward(self, x):
        x = self.stem(x)
        return self.out(x + self.block(x))


class MLP(nn.Module):
    """The benchmark's MLP: 784-512-512-10 with ReLU."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(),
                                 nn.Linear(512, 512), nn.ReLU(),
                                 nn.Linear(512, 10))

    def forward(self, x):
        return self.net(x)


# --------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------

@dataclass
class Spec:
    """How to build, feed and train one zoo model."""
    build: Callable[[], nn.Module]
    # name -> (shape without the batch, "float" | ("int", high) | "mask")
    inputs: Dict[str, Tuple]
    # "CrossEntropyLoss" | "BCEWithLogitsLoss" | "MSELoss"
    loss: str
    # target shape without the batch: () for class labels per sample
    target_shape: Tuple = ()
    classes: int = 10
    batch: int = 8
    # extra generate-artifacts options
    options: List[str] = field(default_factory=list)
    # what the model exercises (docs/models.md)
    about: str = ""
    # A model odt cannot train yet: the text its diagnostic must contain
    # (zoo/check.py then passes on that clear error, and fails on anything
    # else, a crash above all).
    expect_error: str = ""
    # exporter -> text generate-artifacts must print (a note about what
    # that exporter did to the model).
    expect_note: Dict[str, str] = field(default_factory=dict)


def _tokens(seq):
    return {"input_ids": ((seq,), ("int", 1000)),
            "attention_mask": ((seq,), "mask")}


MODELS = {
    "mlp": Spec(MLP, {"input": ((784,), "float")}, "CrossEntropyLoss",
                batch=16, about="Gemm, ReLU"),
    "mobilenetv2": Spec(MobileNetV2, {"input": ((3, 32, 32), "float")},
                        "CrossEntropyLoss",
                        about="depthwise Conv, ReLU6 (Clip), BatchNorm training"),
    "mobilenetv3": Spec(MobileNetV3, {"input": ((3, 32, 32), "float")},
                        "CrossEntropyLoss",
                        about="Hardswish, Hardsigmoid, squeeze-excite, 5x5 depthwise"),
    "efficientnet_lite": Spec(EfficientNetLite, {"input": ((3, 32, 32), "float")},
                              "CrossEntropyLoss", about="MBConv with SiLU"),
    "resnet18_cifar": Spec(ResNet18Cifar, {"input": ((3, 32, 32), "float")},
                           "CrossEntropyLoss",
                           about="3x3 Conv 16-128 channels, BatchNorm training, residuals"),
    "dscnn_kws": Spec(DSCNN, {"input": ((1, 49, 10), "float")},
                      "CrossEntropyLoss", classes=12,
                      about="depthwise-separable keyword spotter"),
    "normnet": Spec(NormNet, {"input": ((3, 16, 16), "float")},
                    "CrossEntropyLoss",
                    about="GroupNorm, InstanceNorm, PReLU"),
    "audio1d": Spec(Audio1D, {"input": ((1, 1600), "float")},
                    "CrossEntropyLoss",
                    about="Conv1d, BatchNorm1d, MaxPool1d"),
    "unet": Spec(UNet, {"input": ((3, 32, 32), "float")}, "CrossEntropyLoss",
                 target_shape=(32, 32), classes=4, batch=4,
                 about="MaxPool, ConvTranspose, nearest and bilinear Resize, "
                       "skip Concat, per-pixel loss"),
    "vit": Spec(ViT, {"input": ((3, 32, 32), "float")}, "CrossEntropyLoss",
                about="patch Conv, class token, positional embedding, attention"),
    "bert_classifier": Spec(BertClassifier, _tokens(32), "CrossEntropyLoss",
                            classes=4,
                            about="token ids, padding mask, GELU, Dropout, tanh pooler"),
    "bert_mlm": Spec(BertMaskedLM, _tokens(32), "CrossEntropyLoss",
                     target_shape=("tokens", 32), classes=1000,
                     options=["--ignore-index", "-100"],
                     about="masked-LM head tied to the word embedding, ignore_index"),
    "gru_kws": Spec(GRUKeywordSpotter, {"input": ((20, 40), "float")},
                    "CrossEntropyLoss", classes=12,
                    about="GRU, 2 layers, bidirectional"),
    "lstm_classifier": Spec(LSTMClassifier, {"input_ids": ((24,), ("int", 500))},
                            "CrossEntropyLoss", classes=4,
                            about="Embedding, LSTM, 2 layers, bidirectional"),
    "autoencoder": Spec(Autoencoder, {"input": ((784,), "float")},
                        "BCEWithLogitsLoss", target_shape=(784,),
                        about="dense autoencoder, BCE with logits"),
    "recommender": Spec(Recommender,
                        {"user_ids": ((), ("int", 200)),
                         "history_ids": ((6,), ("int", 500)),
                         "item_ids": ((), ("int", 500))},
                        "BCEWithLogitsLoss", target_shape=(1,),
                        about="EmbeddingBag (mean), Embedding, click BCE"),
    "tagged_items": Spec(TaggedItems,
                         {"tag_ids": ((6,), ("int", 100)),
                          "tag_weights": ((6,), "float"),
                          "lengths": ((), ("int", 7))},
                         "CrossEntropyLoss", classes=4,
                         about="EmbeddingBags over offsets: variable and empty "
                               "bags, per-sample weights, sum and mean"),
    "tabular": Spec(TabularNet, {"input": ((32,), "float")}, "CrossEntropyLoss",
                    classes=5, about="Mish, Softplus, SELU, CELU"),
}


# Variants that check one form of an op rather than a model people train:
# zoo/check.py takes them like the zoo's models, test/zoo runs them, the
# report (docs/models.md) leaves them out.
VARIANTS = dict(
    # padding_idx: the TorchScript exporter refuses it, so dynamo only.
    bag_padding=Spec(PaddedBag, {"ids": ((6,), ("int", 8))},
                     "CrossEntropyLoss", classes=3,
                     about="EmbeddingBag (mean) with padding_idx"),
    bag_padding_offsets=Spec(lambda: PaddedBag(split=2),
                             {"ids": ((6,), ("int", 8))}, "CrossEntropyLoss",
                             classes=3,
                             about="EmbeddingBag (mean) with padding_idx "
                                   "over offsets"),
    bag_max=Spec(lambda: PaddedBag(mode="max", padding_idx=None),
                 {"ids": ((6,), ("int", 8))}, "CrossEntropyLoss", classes=3,
                 about="EmbeddingBag (max)", expect_error="mode 'max'"),
    causal_attention=Spec(CausalAttention, {"input_ids": ((10,), ("int", 100))},
                          "CrossEntropyLoss", classes=100,
                          about="scaled_dot_product_attention, is_causal"),
    torch_encoder=Spec(TorchEncoder, {"input": ((12, 16), "float")},
                       "CrossEntropyLoss",
                       about="nn.TransformerEncoder, post-norm"),
    # The TorchScript exporter refuses an adaptive pool of a dynamic batch.
    misc_ops=Spec(MiscOps, {"input": ((16,), "float")}, "CrossEntropyLoss",
                  classes=5,
                  about="where, cumsum, normalize, repeat, adaptive pool 2x2"),
    pooling_shapes=Spec(PoolingShapes, {"input": ((3, 16, 16), "float")},
                        "CrossEntropyLoss",
                        about="stride-2 AveragePool, ceil_mode MaxPool, "
                              "reflect padding, grouped Conv"),
    # The TorchScript export carries no trace of padding_idx: there odt
    # trains the row (within the bound after 8 steps; 1e-5 off PyTorch).
    reflect_residual=Spec(ReflectResidual, {"input": ((3, 12, 12), "float")},
                          "CrossEntropyLoss", target_shape=(12, 12), classes=3,
                          batch=4,
                          about="ReflectionPad2d, ReplicationPad2d inside"),
    padded_embedding=Spec(PaddedEmbedding, {"input_ids": ((8,), ("int", 20))},
                          "CrossEntropyLoss", classes=3,
                          about="nn.Embedding with padding_idx",
                          expect_note={"dynamo": "embedding lookup(s) with a "
                                                 "padding_idx"}),
    weight_norm=Spec(WeightNormNet, {"input": ((16,), "float")},
                     "CrossEntropyLoss", classes=5,
                     about="weight_norm (folded by the dynamo exporter)",
                     expect_note={"dynamo": "which the exporter's optimizer "
                                            "folded into a constant"}),
    decoder_ops=Spec(DecoderOps, {"input": ((3, 16, 16), "float")},
                     "CrossEntropyLoss", target_shape=(16, 16), classes=4,
                     batch=4,
                     about="ConvTranspose output_padding, align_corners, "
                           "LayerNorm [C, H, W], GLU, flip"),
)


def names():
    """The zoo's models, then the variants."""
    return list(MODELS) + list(VARIANTS)


def spec_of(name):
    """The Spec of a zoo model or variant."""
    return MODELS[name] if name in MODELS else VARIANTS[name]


def build(name, **kwargs):
    """The module with its seeded initial weights, in training mode."""
    torch.manual_seed(SEED)
    return spec_of(name).build(**kwargs).train()


def data(name, batch, seed=1):
    """(inputs as a dict of numpy arrays in the model's argument order,
    target as a numpy array) for one batch."""
    spec = spec_of(name)
    rng = np.random.default_rng(seed)
    inputs = {}
    for input_name, (shape, kind) in spec.inputs.items():
        full = (batch,) + tuple(shape)
        if kind == "float":
            inputs[input_name] = rng.standard_normal(full).astype(np.float32)
        elif kind == "mask":
            # Padding at the end of each sequence: between half and all of
            # the tokens are real.
            lengths = rng.integers(full[1] // 2, full[1] + 1, size=batch)
            inputs[input_name] = (np.arange(full[1])[None, :] <
                                  lengths[:, None]).astype(np.int64)
        else:
            inputs[input_name] = rng.integers(0, kind[1], size=full).astype(np.int64)
    if spec.loss == "CrossEntropyLoss":
        if spec.target_shape[:1] == ("tokens",):
            # Masked-LM labels: 15% of the real tokens carry their id, the
            # rest are ignored (-100).
            ids = inputs["input_ids"]
            chosen = (rng.random(ids.shape) < 0.15) & (inputs["attention_mask"] > 0)
            chosen[:, 0] = True
            target = np.where(chosen, ids, -100).astype(np.int64)
        else:
            target = rng.integers(0, spec.classes,
                                  size=(batch,) + spec.target_shape).astype(np.int64)
    elif spec.loss == "BCEWithLogitsLoss":
        if name == "autoencoder":
            # Reconstruct the image squashed to [0, 1].
            target = 1.0 / (1.0 + np.exp(-inputs["input"]))
        else:
            target = rng.integers(0, 2, size=(batch,) + spec.target_shape)
        target = target.astype(np.float32)
    else:
        target = rng.standard_normal((batch,) + spec.target_shape).astype(np.float32)
    return inputs, target


def torch_loss(name):
    """The PyTorch loss that generate-artifacts' --loss of the model is."""
    spec = spec_of(name)
    if spec.loss == "CrossEntropyLoss":
        ignore = -100
        return nn.CrossEntropyLoss(ignore_index=ignore)
    if spec.loss == "BCEWithLogitsLoss":
        return nn.BCEWithLogitsLoss()
    return nn.MSELoss()
