# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown]
# The same notebook in the percent format (VS Code, Spyder, jupytext).

# %%
class Big(object):
    def __init__(self):
        self.data = bytearray(256 << 20)

    def __repr__(self):
        return 'Big(256 MiB)'


b = Big()
b

# %%
import gc, sys
del b
gc.collect()
print('NB Out keeps cell 1:', 1 in Out, type(Out[1]).__name__, type(_1).__name__)
