//! Cost-model files and prediction quality: the shared golden files
//! (tests/golden/cost_model_files.json, prediction_quality.json) read and
//! rejected as in C++, Python and Go; round trips to the last bit.
use flopspack::{
    AttentionSpan, CostModel, CostModelFile, EvaluateOptions, FitTerms, ModelQuality,
    PolynomialCoefficients, Status, TransformerConfig,
};
use serde_json::Value;
use std::path::PathBuf;

fn load(name: &str) -> Vec<Value> {
    let dir = std::env::var("FLOPSPACK_GOLDEN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/golden")
        });
    let text = std::fs::read_to_string(dir.join(name)).expect("golden file");
    let file: Value = serde_json::from_str(&text).expect("golden JSON");
    assert_eq!(file["format"], "flopspack-golden-1");
    file["cases"].as_array().expect("cases").clone()
}

fn temp_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flopspack-rust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn coefficients(v: &Value) -> PolynomialCoefficients {
    PolynomialCoefficients {
        per_sequence: v["per_sequence"].as_f64().unwrap(),
        per_document: v["per_document"].as_f64().unwrap(),
        linear: v["linear"].as_f64().unwrap(),
        quadratic: v["quadratic"].as_f64().unwrap(),
    }
}

fn bits(c: &PolynomialCoefficients) -> [u64; 4] {
    [
        c.per_sequence.to_bits(),
        c.per_document.to_bits(),
        c.linear.to_bits(),
        c.quadratic.to_bits(),
    ]
}

#[test]
fn golden_files_give_the_same_model_or_the_same_rejection() {
    let (mut valid, mut invalid) = (0, 0);
    for case in load("cost_model_files.json") {
        let name = case["name"].as_str().unwrap();
        let parsed = CostModelFile::parse(case["text"].as_str().unwrap());
        if let Some(fragment) = case.get("error") {
            invalid += 1;
            let e = parsed.expect_err(name);
            assert_eq!(e.status(), Status::InvalidArgument, "{name}");
            assert!(
                e.message().starts_with("cost model file: ")
                    && e.message().contains(fragment.as_str().unwrap()),
                "{name}: {}",
                e.message()
            );
            continue;
        }
        valid += 1;
        let file = parsed.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(file.unit, case["unit"].as_str().unwrap(), "{name}");
        assert_eq!(
            bits(&file.coefficients),
            bits(&coefficients(&case["coefficients"])),
            "{name}"
        );
        let model = file.model().unwrap();
        for q in case["queries"].as_array().unwrap() {
            let lengths: Vec<i64> = q["lengths"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_i64().unwrap())
                .collect();
            let cost = model.sequence_cost(&lengths).unwrap();
            assert_eq!(
                cost.to_bits(),
                q["sequence_cost"].as_f64().unwrap().to_bits(),
                "{name}"
            );
        }
        // Written back and read again: the same content, the same bits.
        let path = temp_path(&format!("{valid}.json"));
        file.write(&path).unwrap();
        assert_eq!(CostModelFile::read(&path).unwrap(), file, "{name}");
        assert_eq!(
            bits(&CostModel::load(&path).unwrap().coefficients().unwrap()),
            bits(&file.coefficients)
        );
    }
    assert!(
        valid >= 3 && invalid >= 12,
        "{valid} valid, {invalid} invalid"
    );
}

#[test]
fn golden_prediction_quality() {
    let cases = load("prediction_quality.json");
    assert!(cases.len() >= 4);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let spec = &case["model"];
        let i = |k: &str| spec[k].as_i64().unwrap();
        let model = match spec["kind"].as_str().unwrap() {
            "tokens" => CostModel::tokens(),
            "polynomial" => {
                let c = coefficients(spec);
                CostModel::polynomial(c.per_sequence, c.per_document, c.linear, c.quadratic)
            }
            _ => CostModel::transformer(&TransformerConfig {
                num_layers: i("num_layers"),
                hidden_size: i("hidden_size"),
                num_attention_heads: i("num_attention_heads"),
                num_key_value_heads: i("num_key_value_heads"),
                head_dim: i("head_dim"),
                intermediate_size: i("intermediate_size"),
                vocab_size: i("vocab_size"),
                gated_mlp: i("gated_mlp") == 1,
                causal: i("causal") == 1,
                recompute: i("recompute") == 1,
                attention_span: if i("attention_span") == 1 {
                    AttentionSpan::Sequence
                } else {
                    AttentionSpan::Document
                },
            }),
        }
        .unwrap();
        let ints = |k: &str| -> Vec<i64> {
            case[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect()
        };
        let lengths = ints("lengths");
        let offsets: Vec<usize> = ints("offsets").iter().map(|&o| o as usize).collect();
        let seconds: Vec<f64> = case["seconds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let options = EvaluateOptions {
            fit_scale: case["fit_scale"].as_i64() == Some(1),
            scale: case["scale"].as_f64().unwrap(),
            offset: case["offset"].as_f64().unwrap(),
        };
        let q = model
            .prediction_quality_csr(&lengths, &offsets, &seconds, &options)
            .unwrap();
        let want = &case["quality"];
        let got = [
            ("scale", q.scale),
            ("offset", q.offset),
            ("r_squared", q.r_squared),
            ("rms_residual", q.rms_residual),
            ("mean_relative_error", q.mean_relative_error),
            ("median_relative_error", q.median_relative_error),
            ("max_relative_error", q.max_relative_error),
        ];
        for (field, value) in got {
            assert_eq!(
                value.to_bits(),
                want[field].as_f64().unwrap().to_bits(),
                "{name} {field}"
            );
        }
        assert_eq!(
            q.num_samples,
            want["num_samples"].as_u64().unwrap(),
            "{name}"
        );
    }
}

#[test]
fn save_and_load_keep_every_bit() {
    let samples: [&[i64]; 6] = [
        &[100],
        &[200, 50],
        &[300, 300, 10],
        &[4000],
        &[77, 7],
        &[1000, 3],
    ];
    let seconds = [1.1, 2.3, 4.2, 0.8 + 1.0 / 3.0, 9.9, 0.7];
    let (fitted, _) = CostModel::fit(&samples, &seconds, FitTerms::ALL).unwrap();
    let models = [
        CostModel::polynomial(
            0.1 / 3.0,
            f64::from_bits(1e-3f64.to_bits() + 1),
            2.718281828459045e-7,
            1.0 / 7e9,
        )
        .unwrap(),
        fitted,
        CostModel::tokens().unwrap(),
    ];
    for (i, model) in models.iter().enumerate() {
        let mut file = CostModelFile::new(model).unwrap();
        let train = model
            .prediction_quality(
                &samples,
                &seconds,
                &EvaluateOptions {
                    fit_scale: true,
                    ..Default::default()
                },
            )
            .unwrap();
        file.provenance
            .insert("source".into(), "rust \"test\"\n".into());
        file.quality.push(ModelQuality {
            model: "fitted".into(),
            train,
            held_out: Some(train),
        });
        let path = temp_path(&format!("round-{i}.json"));
        file.write(&path).unwrap();
        let again = CostModelFile::read(&path).unwrap();
        assert_eq!(again, file);
        assert_eq!(
            bits(&again.coefficients),
            bits(&model.coefficients().unwrap())
        );
        model.save(&path).unwrap();
        let loaded = CostModel::load(&path).unwrap();
        for s in samples {
            assert_eq!(
                loaded.sequence_cost(s).unwrap().to_bits(),
                model.sequence_cost(s).unwrap().to_bits()
            );
        }
    }
}

#[test]
fn bad_models_files_and_samples() {
    let transformer = CostModel::transformer(&TransformerConfig {
        num_layers: 2,
        hidden_size: 64,
        num_attention_heads: 4,
        num_key_value_heads: 4,
        intermediate_size: 256,
        ..TransformerConfig::default()
    })
    .unwrap();
    let path = temp_path("transformer.json");
    let e = transformer.save(&path).unwrap_err();
    assert!(
        e.message()
            .contains("only a tokens, polynomial or fitted model"),
        "{e}"
    );
    assert!(!path.exists());
    std::fs::write(&path, r#"{"format": "flopspack-cost-model", "version": 3}"#).unwrap();
    let e = CostModel::load(&path).unwrap_err();
    assert!(
        e.message()
            .contains("transformer.json: cost model file: version 3"),
        "{e}"
    );
    let e = CostModel::load(temp_path("missing.json")).unwrap_err();
    assert!(e.message().starts_with("cannot read"), "{e}");

    let tokens = CostModel::tokens().unwrap();
    let e = tokens
        .prediction_quality(&[&[1], &[2]], &[1.0, 0.0], &EvaluateOptions::default())
        .unwrap_err();
    assert!(e.message().contains("seconds[1] = 0"), "{e}");
    let e = tokens
        .prediction_quality(&[], &[], &EvaluateOptions::default())
        .unwrap_err();
    assert!(e.message().contains("0 samples are too few"), "{e}");
    let e = tokens
        .prediction_quality_csr(&[1, 2], &[0, 1], &[1.0, 2.0], &EvaluateOptions::default())
        .unwrap_err();
    assert!(e.message().contains("sample_offsets has 2 entries"), "{e}");
    let custom = CostModel::custom(|_: &[i64]| Err("no cost for you".to_owned())).unwrap();
    let e = custom
        .prediction_quality(&[&[1]], &[1.0], &EvaluateOptions::default())
        .unwrap_err();
    assert_eq!(e.status(), Status::CallbackFailed);
    assert!(e.message().contains("no cost for you"), "{e}");
    assert_eq!(
        custom.coefficients().unwrap_err().status(),
        Status::InvalidArgument
    );
}
