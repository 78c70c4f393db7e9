//! Logistic regression on standardised features, fitted by full-batch gradient descent with
//! an L2 penalty: labelled rows in, a [`Classifier::Logistic`] out. Deterministic: no random
//! choice at all. Kept beside the trees as the simpler family they are measured against.

use crate::detect::hybrid::Classifier;
use crate::detect::hybrid::model::sigmoid;

/// How the regression is fitted.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LogisticSettings {
    /// Passes of gradient descent.
    pub iterations: usize,
    /// Step size.
    pub step: f32,
    /// L2 penalty on the weights.
    pub lambda: f32,
}

impl Default for LogisticSettings {
    fn default() -> Self {
        LogisticSettings {
            iterations: 300,
            step: 0.5,
            lambda: 1e-4,
        }
    }
}

/// Fits the regression to `rows` with `labels` (1 content, 0 not) and per-row `weights`.
/// `stopped` is asked before each step; when it says yes the fit gives up and gives `None`.
pub fn fit<R: AsRef<[f32]>>(
    rows: &[R],
    labels: &[f32],
    weights: &[f32],
    settings: &LogisticSettings,
    stopped: &dyn Fn() -> bool,
) -> Option<Classifier> {
    let width = rows.first().map_or(0, |row| row.as_ref().len());
    let total: f64 = weights.iter().map(|&w| f64::from(w)).sum::<f64>().max(1e-9);
    let mut mean = vec![0f64; width];
    for (row, &w) in rows.iter().zip(weights) {
        for (m, &v) in mean.iter_mut().zip(row.as_ref()) {
            *m += f64::from(v) * f64::from(w);
        }
    }
    mean.iter_mut().for_each(|m| *m /= total);
    let mut spread = vec![0f64; width];
    for (row, &w) in rows.iter().zip(weights) {
        for ((s, &v), m) in spread.iter_mut().zip(row.as_ref()).zip(&mean) {
            *s += (f64::from(v) - m).powi(2) * f64::from(w);
        }
    }
    let scale: Vec<f32> = spread
        .iter()
        .map(|s| ((s / total).sqrt() as f32).max(1e-3))
        .collect();
    let mean: Vec<f32> = mean.iter().map(|&m| m as f32).collect();
    let standard: Vec<Vec<f32>> = rows
        .iter()
        .map(|row| {
            row.as_ref()
                .iter()
                .zip(&mean)
                .zip(&scale)
                .map(|((&v, m), s)| (v - m) / s)
                .collect()
        })
        .collect();

    let mut weights_out = vec![0f64; width];
    let mut bias = 0f64;
    let mut gradient = vec![0f64; width];
    for _ in 0..settings.iterations {
        if stopped() {
            return None;
        }
        gradient.iter_mut().for_each(|g| *g = 0.0);
        let mut bias_gradient = 0f64;
        for ((row, &y), &w) in standard.iter().zip(labels).zip(weights) {
            let score = bias
                + row
                    .iter()
                    .zip(&weights_out)
                    .map(|(&x, &b)| f64::from(x) * b)
                    .sum::<f64>();
            let error = (f64::from(sigmoid(score as f32)) - f64::from(y)) * f64::from(w);
            bias_gradient += error;
            for (g, &x) in gradient.iter_mut().zip(row) {
                *g += error * f64::from(x);
            }
        }
        let step = f64::from(settings.step);
        bias -= step * bias_gradient / total;
        for (b, g) in weights_out.iter_mut().zip(&gradient) {
            *b -= step * (g / total + f64::from(settings.lambda) * *b);
        }
    }
    Some(Classifier::Logistic {
        bias: bias as f32,
        weights: weights_out.iter().map(|&b| b as f32).collect(),
        mean,
        scale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::boost::SplitMix;

    #[test]
    fn a_linear_boundary_is_learned() {
        let mut random = SplitMix::new(3);
        let rows: Vec<Vec<f32>> = (0..2000)
            .map(|_| vec![random.next_f32() * 10.0, random.next_f32()])
            .collect();
        let labels: Vec<f32> = rows.iter().map(|r| f32::from(r[0] > 5.0)).collect();
        let weights = vec![1.0; rows.len()];
        let model = fit(
            &rows,
            &labels,
            &weights,
            &LogisticSettings::default(),
            &|| false,
        )
        .expect("not stopped");
        let Classifier::Logistic {
            bias,
            weights,
            mean,
            scale,
        } = &model
        else {
            unreachable!()
        };
        let right = rows
            .iter()
            .zip(&labels)
            .filter(|(row, y)| {
                let score: f32 = bias
                    + row
                        .iter()
                        .enumerate()
                        .map(|(at, &v)| weights[at] * (v - mean[at]) / scale[at])
                        .sum::<f32>();
                (score >= 0.0) == (**y == 1.0)
            })
            .count();
        assert!(right > 1900, "{right}");
        let settings = LogisticSettings::default();
        let stopped = fit(&rows, &labels, &vec![1.0; 2000], &settings, &|| true);
        assert_eq!(stopped, None, "told to stop before its first step");
    }
}
