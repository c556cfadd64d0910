#!/usr/bin/env python3
"""A mix of text-only and image-heavy documents, for the straggler
emulator's extra-cost figures (docs/straggler-emulator.md, Extra costs).

    PYTHONPATH=build/dev/bindings/python /usr/bin/python3 \\
        scripts/make_multimodal_dataset.py 200000 0.3 1 mm_lengths.txt mm_extra.txt

N documents; a share of them image-heavy: 1-4 images of 256, 576, 1,024 or
2,048 patches each and a caption (log-normal, median 200 tokens, at most
2,000); the others text only (log-normal, median 1,500 tokens, sigma 1.0,
at most 8,192). Writes the tokens the language model sees (text + images x
patches) to LENGTHS and the vision encoder's training FLOPs of each
document's images (a ViT-L-like encoder: 24 layers, hidden 1,024, 16 heads,
FFN 4,096, no causal mask, no LM head) to EXTRA, one per line, through
flopspack.multimodal_costs: the files `flopspack simulate LENGTHS
--extra-costs EXTRA` reads. Seeded (numpy's default_rng).
"""
import sys

import numpy as np

import flopspack


def main(argv):
    if len(argv) != 6:
        sys.exit(__doc__)
    n, share, seed = int(argv[1]), float(argv[2]), int(argv[3])
    rng = np.random.default_rng(seed)
    heavy = rng.random(n) < share
    text = np.where(heavy, np.minimum(2000, rng.lognormal(np.log(200), 0.8, n)),
                    np.minimum(8192, rng.lognormal(np.log(1500), 1.0, n))).astype(np.int64) + 1
    images = np.where(heavy, rng.integers(1, 5, n), 0)
    patches = np.where(heavy, rng.choice([256, 576, 1024, 2048], n), 0)
    vit = flopspack.CostModel.transformer(num_layers=24, hidden_size=1024,
                                          num_attention_heads=16, num_key_value_heads=16,
                                          intermediate_size=4096, causal=False, vocab_size=0)
    tokens, extra = flopspack.multimodal_costs(vit, text, images, patches)
    np.savetxt(argv[4], tokens, fmt="%d")
    np.savetxt(argv[5], extra, fmt="%.17g")
    print(f"{n} documents, {int(heavy.sum())} image-heavy, {int(tokens.sum())} tokens")


if __name__ == "__main__":
    main(sys.argv)
