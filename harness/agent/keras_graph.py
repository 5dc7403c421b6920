"""How many operations Keras' global graph holds.

Runs inside the environment, in the script's process: stdlib only, Python 2.7 and 3.5+. TensorFlow 2.0-2.3 build a
functional model's layers as operations of one graph Keras keeps for the whole process (its backend's ``_GRAPH``):
a model built in a loop leaves its operations, and through them its layers, there until
``tf.keras.backend.clear_session()`` (15 a model of two Dense layers; the process's memory rises with them).
From 2.4 on, KerasTensors build no operations there. The graph is only read: none is made where none was.
"""
import sys

# where each era's Keras keeps that graph: tf.keras of TF 2.0-2.5, standalone keras 2.6-2.15, tf_keras
MODULES = ("tensorflow.python.keras.backend", "keras.backend", "keras.src.backend", "tf_keras.src.backend")
NAME = "Keras' global graph"  # as a loop's growing name (sampled.py): no name of a script's has a space


def operations():
    """The operations in Keras' global graph, or None where no Keras backend made one."""
    for name in MODULES:
        module = sys.modules.get(name)
        holder = getattr(module, "_GRAPH", None) if module is not None else None
        graph = getattr(holder, "graph", holder)  # a threading.local holding it in later releases
        count = getattr(graph, "get_operations", None)
        if count is None:
            continue
        try:
            return len(count())
        except Exception:  # a graph being finalised or torn down: nothing to read
            continue
    return None
