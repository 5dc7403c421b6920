# In the style of a TF 1.x report: "GPU memory is not released after sess.close()".
import numpy as np
import tensorflow as tf

if hasattr(tf, "compat") and hasattr(tf.compat, "v1"):
    tf = tf.compat.v1
    tf.disable_eager_execution()

a = tf.placeholder(tf.float32, shape=(None, 2048))
w = tf.Variable(tf.random_normal((2048, 2048)))
out = tf.reduce_sum(tf.matmul(a, w))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print(sess.run(out, feed_dict={a: np.ones((4096, 2048), dtype=np.float32)}))
sess = tf.Session()
sess.run(tf.global_variables_initializer())
sess.close()
tf.reset_default_graph()
print("closed")
