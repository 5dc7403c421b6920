"""A TF1 session left open: its graph's variables stay in it after the script drops the result.
Python 2.7 and 3 (TF 1.x, or TF 2.x through tf.compat.v1 in graph mode). Prints the variable's size
it computes itself; under repro, the open session is named at the cleanup line."""
import tensorflow as tf

if hasattr(tf, "compat") and hasattr(tf.compat, "v1"):
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
else:
    tf1 = tf
weights = tf1.Variable(tf1.zeros([4096, 4096]), name="weights")
sess = tf1.Session()
sess.run(tf1.global_variables_initializer())
result = sess.run(tf1.reduce_sum(weights))
del result
print("FIDELITY done, weights %.2f MiB" % (weights.shape.num_elements() * 4 / 2.0 ** 20))
