import tensorflow as tf

scores = []
for i in range(400):
    inputs = tf.keras.Input(shape=(10,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(tf.keras.layers.Dense(32)(inputs)))
    scores.append(float(model(tf.zeros((1, 10))).numpy().sum()))
print("FIDELITY keras loop done", len(scores))
