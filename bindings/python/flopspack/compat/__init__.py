"""Drop-in replacements for the balancing and packing helpers of popular
trainers, with the same names, arguments and return types, backed by
flopspack's algorithms and an optional ``cost_model=`` (docs/pytorch.md):

- :func:`flopspack.compat.verl.get_seqlen_balanced_partitions`
- :class:`flopspack.compat.axolotl.MultipackBatchSampler`

Import the submodule you need; ``flopspack.compat.axolotl`` needs torch.
"""
