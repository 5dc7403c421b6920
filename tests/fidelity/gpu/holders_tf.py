"""Keras models kept in a list after `del model` and clear_session(), a variable kept in a dict, and
a result still named after `del x`: TensorFlow's memory held by the script's names. Prints the sizes
it computes itself; under repro, each holder is named at the cleanup lines (GPU memory on a GPU,
host memory on a CPU)."""
import tensorflow as tf

models = []
for i in range(3):
    model = tf.keras.Sequential([tf.keras.Input(shape=(2048,)), tf.keras.layers.Dense(2048),
                                 tf.keras.layers.Dense(10)])
    models.append(model)
del model
tf.keras.backend.clear_session()
cache = {"table": tf.Variable(tf.zeros([4096, 4096]))}
x = tf.random.normal([4096, 4096])
y = tf.matmul(x, x)
del x
weights = sum(int(w.shape.num_elements()) * 4 for m in models for w in m.weights)
table = int(cache["table"].shape.num_elements()) * 4
print("FIDELITY done %d models, %.2f MiB of weights, table %.2f MiB, y %.2f MiB" % (
    len(models), weights / 2.0 ** 20, table / 2.0 ** 20, int(y.shape.num_elements()) * 4 / 2.0 ** 20))
