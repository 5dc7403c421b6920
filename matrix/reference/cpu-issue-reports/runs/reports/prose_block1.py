import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
for _ in range(100):
    model.predict(tf.zeros((1, 10)), verbose=0)
