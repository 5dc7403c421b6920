"""TensorFlow on the GPU in brief (cuda11_history_gpu.sh probe): the devices it registered, a matrix product
there, and its memory after ``del``. Python 3.5+."""
import tensorflow as tf

print(tf.__version__, tf.config.list_physical_devices("GPU"))
a = tf.random.normal([4096, 4096])
b = tf.linalg.matmul(a, a)
print(a.device, float(tf.reduce_sum(b)))
del a, b
