//! The Trainer compiles through the one compile path: a model built again
//! (as a second process would) takes its train step and its forward
//! routine from the compilation cache, and computes the same.

use ocannl::*;

fn model() -> Trainer {
    let x = data("x", "4|3");
    let y = relu(&(param("b").output(&[2]) + param("w").output(&[2]) * &x));
    let points = data("points", "5|3");
    let f = param("b").output(&[2]) + param("w").output(&[2]) * &points;
    Trainer::new(&sum(&y), &f, Sgd::default()).unwrap()
}

#[test]
fn the_train_step_and_the_forward_routine_hit_the_cache() {
    let dir = std::env::temp_dir().join(format!("ocannl-trainer-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // This test is alone in its binary: no other thread reads the variable.
    std::env::set_var("OCANNL_CACHE_DIR", &dir);
    std::env::remove_var("OCANNL_CACHE");
    let points = HostTensor::from_f64(Elt::F32, vec![5, 3], (0..15).map(|k| k as f64 * 0.25 - 1.0));
    let run = || {
        let t = model();
        let out = t.forward(std::slice::from_ref(&points)).unwrap();
        (t.times(), out)
    };
    let (cold, first) = run();
    assert_eq!(cold.cache, CacheUse::Miss);
    assert_eq!(cold.forward_cache, Some(CacheUse::Miss));
    let (warm, second) = run();
    assert_eq!(warm.cache, CacheUse::Hit);
    assert_eq!(warm.forward_cache, Some(CacheUse::Hit));
    assert_eq!(warm.passes, std::time::Duration::ZERO);
    assert_eq!(first, second);
    let _ = std::fs::remove_dir_all(&dir);
}
