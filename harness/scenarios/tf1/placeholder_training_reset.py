"""Batched training through placeholders, then close + reset_default_graph (seed 002, example 3)."""
import numpy as np

from _tf1kit import config, v1

META = {"families": ["tf1"], "seed": "002_c1b13a36cfe93241.txt",
        "technique": "placeholder batches, GradientDescent; close + reset_default_graph",
        "params": {"width": 8192, "batch": 2048, "batches": 4}, "cpu_params": {"width": 4096, "batch": 128}}

width, batch = PARAMS["width"], PARAMS["batch"]
session = v1.Session(config=config())
session.run(v1.constant(1.0))
checkpoint("ready")
x = v1.placeholder(v1.float32, shape=(None, width))
y = v1.placeholder(v1.float32, shape=(None, 1))
w1 = v1.Variable(v1.random_normal((width, width), stddev=0.01))
w2 = v1.Variable(v1.random_normal((width, 1), stddev=0.01))
pred = v1.matmul(v1.nn.relu(v1.matmul(x, w1)), w2)
loss = v1.reduce_mean(v1.square(y - pred))
train_op = v1.train.GradientDescentOptimizer(0.01).minimize(loss)
session.run(v1.global_variables_initializer())
for _ in range(PARAMS["batches"]):
    batch_x = np.random.rand(batch, width).astype("float32")
    batch_y = np.random.rand(batch, 1).astype("float32")
    session.run([train_op, loss], feed_dict={x: batch_x, y: batch_y})
checkpoint("peak")
session.close()
checkpoint("after_close")
v1.reset_default_graph()
checkpoint("after_reset_graph")
