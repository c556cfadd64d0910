use flopspack::{CostModel, FitTerms, Status, TransformerConfig};

fn llama3_8b() -> TransformerConfig {
    TransformerConfig {
        num_layers: 32,
        hidden_size: 4096,
        num_attention_heads: 32,
        num_key_value_heads: 8,
        intermediate_size: 14336,
        vocab_size: 128256,
        gated_mlp: true,
        ..TransformerConfig::default()
    }
}

#[test]
fn version_matches_header() {
    assert_eq!(
        flopspack::version_number(),
        flopspack::HEADER_VERSION_NUMBER
    );
    assert_eq!(flopspack::version(), "1.0.0");
}

#[test]
fn polynomial_closed_forms() {
    let m = CostModel::polynomial(7.0, 1.0, 2.0, 0.25).unwrap();
    let docs = [4, 8, 2];
    assert_eq!(m.document_costs(&docs).unwrap(), vec![13.0, 33.0, 6.0]);
    assert_eq!(m.sequence_overhead(), 7.0);
    assert_eq!(m.sequence_cost(&docs).unwrap(), 7.0 + 13.0 + 33.0 + 6.0);
    assert_eq!(
        m.padded_batch_cost(&docs).unwrap(),
        3.0 * (7.0 + 1.0 + 16.0 + 16.0)
    );
    assert_eq!(m.sequence_cost(&[]).unwrap(), 0.0);
    assert!(m.is_additive());
}

#[test]
fn transformer_matches_the_c_test() {
    let m = CostModel::transformer(&llama3_8b()).unwrap();
    assert_eq!(m.sequence_cost(&[8192]).unwrap(), 421651971833856.0);
}

#[test]
fn bad_arguments_carry_the_library_message() {
    let m = CostModel::tokens().unwrap();
    let e = m.sequence_cost(&[4, -5]).unwrap_err();
    assert_eq!(e.status(), Status::InvalidArgument);
    assert_eq!(
        e.message(),
        "document_lengths[1] = -5: every length must be positive"
    );
    assert_eq!(
        e.to_string(),
        "FLOPSPACK_INVALID_ARGUMENT: document_lengths[1] = -5: every length must be positive"
    );
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().contains("-5"));

    let e = CostModel::polynomial(0.0, 0.0, f64::NAN, 0.0).unwrap_err();
    assert!(e.message().contains("linear = nan"), "{e}");
    let e = CostModel::transformer(&TransformerConfig {
        hidden_size: 0,
        ..llama3_8b()
    })
    .unwrap_err();
    assert!(
        e.message().contains("hidden_size = 0 must be positive"),
        "{e}"
    );
    let e = m.document_costs_into(&[1, 2], &mut [0.0]).unwrap_err();
    assert!(e.message().contains("out_costs has 1 entries for 2"), "{e}");
    let e = CostModel::fit_csr(&[1, 2], &[0, 1], &[1.0, 2.0], FitTerms::ALL).unwrap_err();
    assert!(e.message().contains("sample_offsets has 2 entries"), "{e}");
}

#[test]
fn custom_closure_errors_and_panics_become_callback_failures() {
    let m = CostModel::custom(|lengths| {
        let total: i64 = lengths.iter().sum();
        if total > 100 {
            return Err("too long for this test".to_owned());
        }
        Ok((total * total) as f64)
    })
    .unwrap();
    assert_eq!(m.sequence_cost(&[3, 4]).unwrap(), 49.0);
    assert!(!m.is_additive());
    let e = m.sequence_cost(&[60, 50]).unwrap_err();
    assert_eq!(e.status(), Status::CallbackFailed);
    assert!(e.message().ends_with(": too long for this test"), "{e}");

    let p = CostModel::custom(|_| panic!("boom")).unwrap();
    let e = p.sequence_cost(&[1]).unwrap_err();
    assert_eq!(e.status(), Status::CallbackFailed);
    assert!(e.message().contains("panicked"), "{e}");
}

#[test]
fn fit_recovers_exact_coefficients() {
    let samples: Vec<Vec<i64>> = (1..=5).map(|i| vec![10 * i]).collect();
    let refs: Vec<&[i64]> = samples.iter().map(|s| s.as_slice()).collect();
    let seconds: Vec<f64> = samples.iter().map(|s| 2.0 + 0.5 * s[0] as f64).collect();
    let (m, r) =
        CostModel::fit(&refs, &seconds, FitTerms::PER_SEQUENCE | FitTerms::LINEAR).unwrap();
    assert!(
        (r.per_sequence - 2.0).abs() < 1e-9 && (r.linear - 0.5).abs() < 1e-12,
        "{r:?}"
    );
    assert_eq!(r.num_samples, 5);
    assert!(r.r_squared > 1.0 - 1e-12);
    assert!((m.sequence_cost(&[60]).unwrap() - 32.0).abs() < 1e-9);
    let e = CostModel::fit(&refs[..2], &seconds[..2], FitTerms::ALL).unwrap_err();
    assert!(e.message().contains("too few"), "{e}");
}

#[test]
fn models_are_send_and_sync_and_shareable() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CostModel>();
    assert_send_sync::<flopspack::Plan>();
    let m = std::sync::Arc::new(CostModel::polynomial(0.0, 0.0, 1.0, 1.0).unwrap());
    let handles: Vec<_> = (1..=4)
        .map(|t| {
            let m = m.clone();
            std::thread::spawn(move || m.sequence_cost(&[t]).unwrap())
        })
        .collect();
    let costs: Vec<f64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(costs, vec![2.0, 6.0, 12.0, 20.0]);
}
