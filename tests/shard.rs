//! One session over many machines, through the real binary: three shards
//! (one chosen by `--shard`, one by Kubernetes' and one by Slurm's
//! variables, one killed with SIGKILL and resumed) merge into exactly the
//! results file and replays of the session run unsplit; a missing shard is
//! named by id ranges, and `--allow-partial` merges what there is (and the
//! merged directory resumes into the whole session); shards of other
//! sessions, a used `--out`, a resume as another shard and bad shard
//! variables are refused; and the deploy manifests (Kubernetes, Slurm,
//! AWS Batch) agree with the code.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use tempfile::TempDir;

use tickbot::progress::Progress;
use tickbot::session::merge::{Merge, MergeError};
use tickbot::session::shard::{
    COUNT_VARIABLES, INDEX_VARIABLES, KUBERNETES_INDEX, SHARD_COUNT, SLURM_COUNT, SLURM_INDEX, SLURM_MIN,
};

use crate::session::{comparable, kill_and_resume, write_session};
use crate::support::{repo_path, tickbot};

/// The session's entries, in the order of its file: the merged file's order.
const ENTRIES: [&str; 3] = ["open", "pipes", "flag"];

/// A results file with its two wall-clock fields (`planner_us`,
/// `elapsed_us`) set to 0: every other byte is compared.
fn without_wall_clock(text: &str) -> String {
    let mut out = text.to_string();
    for key in ["\"planner_us\":", "\"elapsed_us\":"] {
        let mut masked = String::new();
        let mut rest = out.as_str();
        while let Some(at) = rest.find(key) {
            let (before, after) = rest.split_at(at + key.len());
            masked.push_str(before);
            masked.push('0');
            rest = after.trim_start_matches(|letter: char| letter.is_ascii_digit());
        }
        masked.push_str(rest);
        out = masked;
    }
    out
}

/// The unsplit session's results file put in id order (entry by entry in
/// the session file's order, each by index), as `merge` promises to write.
fn in_id_order(text: &str) -> String {
    let mut lines: Vec<(usize, u64, &str)> = text
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            let entry = ENTRIES.iter().position(|name| value["entry"] == *name).unwrap();
            (entry, value["index"].as_u64().unwrap(), line)
        })
        .collect();
    lines.sort();
    lines.iter().map(|(_, _, line)| format!("{line}\n")).collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[track_caller]
fn check_refused(output: &std::process::Output, fragments: &[&str]) {
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(2), "{text}");
    for fragment in fragments {
        assert!(text.contains(fragment), "should say {fragment:?}: {text}");
    }
}

#[test]
fn three_shards_one_killed_and_resumed_merge_into_exactly_the_unsplit_session() {
    let unsplit = TempDir::new().unwrap();
    // Boards big enough that a shard lasts several group commits: it must
    // still be running when it is killed.
    let config = write_session(unsplit.path(), "20x20", 12);
    let config = config.to_str().unwrap();
    tickbot(unsplit.path()).args(["run", "--config", config, "--out", "s"]).assert().success();

    let split = TempDir::new().unwrap();
    let dir = split.path();
    tickbot(dir).args(["run", "--config", config, "--out", "shard-0", "--shard", "0/3"]).assert().success();
    // Slurm numbers this array's tasks from 1: task 3 is shard 2.
    tickbot(dir)
        .envs([(SLURM_INDEX, "3"), (SLURM_MIN, "1"), (SLURM_COUNT, "3")])
        .args(["run", "--config", config, "--out", "shard-2"])
        .assert()
        .success()
        .stdout(predicates::str::contains("shard 2/3: the games whose index in their entry is 2 modulo 3"));
    // Kubernetes gives the index; the count is ours. Killed midway, resumed
    // by a pod that gets the same index.
    let kubernetes = [(KUBERNETES_INDEX, "1"), (SHARD_COUNT, "3")];
    let start = ["run", "--config", config, "--out", "shard-1", "--jobs", "1"];
    let resume = ["run", "--resume", "shard-1", "--jobs", "1"];
    let mut state = 0x2545_f491_4f6c_dd1d;
    let kills = kill_and_resume(dir, &dir.join("shard-1"), &start, &resume, &kubernetes, 2, &mut state);
    assert!(kills >= 1, "shard 1 ended before it was killed");
    tickbot(dir).envs(kubernetes).args(["run", "--resume", "shard-1"]).assert().success();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("shard-1/manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["shard"], serde_json::json!({"index": 1, "count": 3}));
    // Shard 0 run again elsewhere: its ids are in the merge twice.
    copy_dir(&dir.join("shard-0"), &dir.join("shard-0-again"));

    tickbot(dir)
        .args(["merge", "shard-2", "shard-0", "shard-1", "shard-0-again", "--out", "s"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "26 games in the session, 26 recorded (9 recorded twice, kept from the first",
        ))
        .stdout(predicates::str::contains("26 hard-linked"));
    let merged = std::fs::read_to_string(dir.join("s/results.jsonl")).unwrap();
    let whole = std::fs::read_to_string(unsplit.path().join("s/results.jsonl")).unwrap();
    assert_eq!(without_wall_clock(&merged), without_wall_clock(&in_id_order(&whole)));
    assert_eq!(comparable(dir, "s"), comparable(unsplit.path(), "s"), "the replays differ");
    tickbot(dir)
        .args(["replay", "verify", "s/replays"])
        .assert()
        .success()
        .stdout(predicates::str::contains("26 replays: 26 reproduced, 0 diverged, 0 invalid"));

    // Shard 1 missing: nothing written, its ids named by runs.
    let output = tickbot(dir).args(["merge", "shard-0", "shard-2", "--out", "partial"]).output().unwrap();
    check_refused(
        &output,
        &[
            "no directory holds shard 1/3",
            "missing 9 games:",
            "open/000001 to open/000010 in steps of 3 (4 games)",
            "pipes/000001 to pipes/000007 in steps of 3 (3 games)",
            "flag/000001 and flag/000004",
            "--allow-partial",
        ],
    );
    assert!(!dir.join("partial").exists());
    tickbot(dir)
        .args(["merge", "shard-0", "shard-2", "--out", "partial", "--allow-partial"])
        .assert()
        .success()
        .stdout(predicates::str::contains("`tickbot run --resume partial` plays the 9 missing games"));
    assert_eq!(std::fs::read_to_string(dir.join("partial/results.jsonl")).unwrap().lines().count(), 17);
    // The merged manifest is the whole session's: a resume plays the rest.
    tickbot(dir).args(["run", "--resume", "partial"]).assert().success();
    assert_eq!(comparable(dir, "partial"), comparable(unsplit.path(), "s"));
}

/// Rewrites `dir`'s manifest through `change`.
fn edit_manifest(dir: &Path, change: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join("manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    change(&mut manifest);
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

#[test]
fn shards_of_other_sessions_a_used_out_and_bad_shard_choices_are_refused() {
    let temp = TempDir::new().unwrap();
    let dir = temp.path();
    let config = write_session(dir, "6x6", 2);
    let config = config.to_str().unwrap();
    for shard in ["0/2", "1/2"] {
        let out = format!("shard-{}", &shard[..1]);
        tickbot(dir).args(["run", "--config", config, "--out", &out, "--shard", shard]).assert().success();
    }
    let other = |name: &str, change: fn(&mut serde_json::Value)| {
        copy_dir(&dir.join("shard-1"), &dir.join(name));
        edit_manifest(&dir.join(name), change);
        tickbot(dir).args(["merge", "shard-0", name, "--out", "m"]).output().unwrap()
    };
    check_refused(&other("seed", |manifest| manifest["master_seed"] = 8.into()), &["its master seed is 8"]);
    check_refused(
        &other("version", |manifest| manifest["tickbot_version"] = "0.0.0-old".into()),
        &["is not a shard of the session in shard-0: it was played by tickbot 0.0.0-old"],
    );
    check_refused(
        &other("games", |manifest| manifest["config"]["entry"][1]["games"] = 9.into()),
        &["its session differs in: entry"],
    );
    check_refused(
        &other("count", |manifest| manifest["shard"]["count"] = 3.into()),
        &["it is shard 1/3, and shard-0 is shard 0/2: the shard counts differ"],
    );
    check_refused(
        &other("whole", |manifest| {
            manifest.as_object_mut().unwrap().remove("shard");
        }),
        &["it is a whole session"],
    );
    copy_dir(&dir.join("shard-1"), &dir.join("damaged"));
    let results = dir.join("damaged/results.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    std::fs::write(&results, text.replacen('\n', "\ngarbage\n", 1)).unwrap();
    check_refused(
        &tickbot(dir).args(["merge", "shard-0", "damaged", "--out", "m"]).output().unwrap(),
        &["damaged/results.jsonl: line 2: damaged"],
    );
    std::fs::create_dir_all(dir.join("used")).unwrap();
    std::fs::write(dir.join("used/notes.txt"), "mine").unwrap();
    check_refused(
        &tickbot(dir).args(["merge", "shard-0", "shard-1", "--out", "used"]).output().unwrap(),
        &["used is not empty"],
    );
    check_refused(
        &tickbot(dir).args(["merge", "nowhere", "--out", "m"]).output().unwrap(),
        &["nowhere has no manifest.json"],
    );
    assert!(!dir.join("m").exists());
    // Stopped (Ctrl-C) part way: nothing at --out, nothing half-built beside it.
    let merge = Merge::open(&[dir.join("shard-0"), dir.join("shard-1")], &Progress::default()).unwrap();
    let stopped = merge.write(&dir.join("m"), &Progress::default(), &AtomicBool::new(true));
    assert!(matches!(stopped, Err(MergeError::Interrupted { .. })), "{stopped:?}");
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|entry| entry.file_name()).collect();
    assert!(left.iter().all(|name| !name.to_string_lossy().contains("merging")), "{left:?}");
    assert!(!dir.join("m").exists());
    // Onto another filesystem the replays are copied, and the report says so.
    if let Some(other) = other_filesystem(dir) {
        let out = other.path().join("m");
        tickbot(dir)
            .args(["merge", "shard-0", "shard-1", "--out", out.to_str().unwrap()])
            .assert()
            .success()
            .stdout(predicates::str::contains("16 copied (another filesystem"));
        tickbot(dir).arg("replay").arg("verify").arg(out.join("replays")).assert().success();
    }

    // A shard resumes only as itself, whichever way the shard is asked for.
    check_refused(
        &tickbot(dir).args(["run", "--resume", "shard-0", "--shard", "1/2"]).output().unwrap(),
        &["shard-0 holds shard 0/2 of its session, but --shard 1/2 asks for shard 1/2"],
    );
    check_refused(
        &tickbot(dir)
            .envs([(KUBERNETES_INDEX, "1"), (SHARD_COUNT, "2")])
            .args(["run", "--resume", "shard-0"])
            .output()
            .unwrap(),
        &["but JOB_COMPLETION_INDEX=1 and TICKBOT_SHARD_COUNT=2 asks for shard 1/2"],
    );
    tickbot(dir)
        .envs([(KUBERNETES_INDEX, "0"), (SHARD_COUNT, "2")])
        .args(["run", "--resume", "shard-0"])
        .assert()
        .success()
        .stdout(predicates::str::contains("finished 8 games"));
    // Bad variables are refused before anything is written.
    check_refused(
        &tickbot(dir).env(KUBERNETES_INDEX, "one").args(["run", "--config", config, "--out", "x"]).output().unwrap(),
        &["JOB_COMPLETION_INDEX=\"one\": expected a whole number"],
    );
    check_refused(
        &tickbot(dir)
            .envs([(KUBERNETES_INDEX, "0"), ("AWS_BATCH_JOB_ARRAY_INDEX", "1"), (SHARD_COUNT, "2")])
            .args(["run", "--config", config, "--out", "x"])
            .output()
            .unwrap(),
        &["disagree on the shard index"],
    );
    assert!(!dir.join("x").exists());
}

/// A temporary directory on another filesystem than `dir` (a Linux tmpfs),
/// if there is one.
#[allow(clippy::print_stderr)] // says when the check is skipped
fn other_filesystem(dir: &Path) -> Option<TempDir> {
    use std::os::unix::fs::MetadataExt;
    let other = TempDir::new_in("/dev/shm").ok()?;
    let device = |path: &Path| std::fs::metadata(path).map(|metadata| metadata.dev()).ok();
    if device(other.path()) == device(dir) {
        eprintln!("skipped the copy check: /dev/shm is on the same filesystem as the temporary directory");
        return None;
    }
    Some(other)
}

fn yaml_documents(path: &Path) -> Vec<serde_norway::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_norway::Deserializer::from_str(&text)
        .map(|document| {
            serde::Deserialize::deserialize(document).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
        })
        .collect()
}

fn merge_args(document: &serde_norway::Value) -> String {
    document["spec"]["template"]["spec"]["containers"][0]["args"][0].as_str().unwrap().to_string()
}

/// Every `$NAME` or `${NAME...}` a shell text names.
fn shell_variables(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in text.match_indices('$') {
        let name: String = text[at + 1..]
            .trim_start_matches('{')
            .chars()
            .take_while(|letter| letter.is_ascii_alphanumeric() || *letter == '_')
            .collect();
        if !name.is_empty() {
            names.push(name);
        }
    }
    names
}

#[test]
fn the_deploy_manifests_parse_and_agree_with_the_code() {
    let deploy = repo_path("deploy");
    // Kubernetes: an Indexed Job whose count variable equals its completions,
    // and a merge Job over the same volume.
    let [shards] = &yaml_documents(&deploy.join("kubernetes/shards.yaml"))[..] else { panic!("one document") };
    assert_eq!((shards["apiVersion"].as_str(), shards["kind"].as_str()), (Some("batch/v1"), Some("Job")));
    let spec = &shards["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    let completions = spec["completions"].as_u64().unwrap();
    let parallelism = spec["parallelism"].as_u64().unwrap();
    assert!(parallelism >= 1 && parallelism <= completions, "{parallelism} pods at once of {completions}");
    let container = &spec["template"]["spec"]["containers"][0];
    let env = container["env"].as_sequence().unwrap();
    let count = env.iter().find(|variable| variable["name"].as_str() == Some(SHARD_COUNT)).unwrap();
    assert_eq!(count["value"].as_str(), Some(completions.to_string().as_str()), "{SHARD_COUNT} must equal completions");
    let script = container["args"][0].as_str().unwrap();
    let merge_script = merge_args(&yaml_documents(&deploy.join("kubernetes/merge.yaml"))[0]);
    for text in [script, merge_script.as_str()] {
        let status = std::process::Command::new("sh").args(["-n", "-c", text]).status().unwrap();
        assert!(status.success(), "sh -n: {text}");
    }
    assert!(shell_variables(script).contains(&KUBERNETES_INDEX.to_string()), "{script}");
    assert!(script.contains("run --resume") && script.contains("manifest.json"), "a retried pod resumes: {script}");
    let fail_on = &spec["podFailurePolicy"]["rules"][0]["onExitCodes"];
    assert_eq!(fail_on["containerName"], container["name"]);
    assert_eq!(fail_on["values"][0].as_u64(), Some(2), "bad input fails the Job at once");
    let claim = |document: &serde_norway::Value| {
        document["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"]
            .as_str()
            .map(String::from)
    };
    let [merge] = &yaml_documents(&deploy.join("kubernetes/merge.yaml"))[..] else { panic!("one document") };
    let [volume] = &yaml_documents(&deploy.join("kubernetes/volume.yaml"))[..] else { panic!("one document") };
    assert_eq!(volume["kind"].as_str(), Some("PersistentVolumeClaim"));
    assert_eq!(volume["spec"]["accessModes"][0].as_str(), Some("ReadWriteMany"));
    assert_eq!(claim(shards), volume["metadata"]["name"].as_str().map(String::from));
    assert_eq!(claim(merge), claim(shards));
    assert!(merge_args(merge).contains("tickbot merge"));

    // Slurm: scripts bash accepts, an array of tasks 0 to N-1, the variables tickbot reads.
    for script in ["slurm/shards.sbatch", "slurm/merge.sbatch"] {
        let path: PathBuf = deploy.join(script);
        let status = std::process::Command::new("bash").arg("-n").arg(&path).status().unwrap();
        assert!(status.success(), "bash -n {}", path.display());
    }
    let text = std::fs::read_to_string(deploy.join("slurm/shards.sbatch")).unwrap();
    assert!(text.lines().any(|line| line.starts_with("#SBATCH --array=0-")), "{text}");
    assert!(shell_variables(&text).contains(&SLURM_INDEX.to_string()));
    assert!(text.contains("run --resume"));
    // Every engine variable a manifest names is one the code reads, or one the engine sets for the script.
    let known: Vec<&str> = INDEX_VARIABLES.iter().chain(&COUNT_VARIABLES).copied().collect();
    for name in shell_variables(&text).into_iter().chain(shell_variables(script)) {
        if name.starts_with("SLURM_ARRAY") || name.starts_with("JOB_") || name.starts_with("TICKBOT_SHARD") {
            assert!(known.contains(&name.as_str()), "{name} is not a variable tickbot reads");
        }
    }

    // AWS Batch: job definitions whose array index is the one tickbot reads,
    // with a count, a resume, bad input not retried, and the shared volume.
    let batch = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(deploy.join("aws-batch").join(name)).unwrap()).unwrap()
    };
    let (shards, merge) = (batch("shards.json"), batch("merge.json"));
    for definition in [&shards, &merge] {
        assert_eq!(definition["type"], "container");
        let container = &definition["containerProperties"];
        let command = container["command"].as_array().unwrap();
        assert_eq!(command[..2], ["/bin/sh", "-c"]);
        let status = std::process::Command::new("sh").args(["-n", "-c", command[2].as_str().unwrap()]).status();
        assert!(status.unwrap().success(), "sh -n: {}", command[2]);
        let volume = container["volumes"][0]["name"].as_str();
        assert!(container["volumes"][0]["efsVolumeConfiguration"]["fileSystemId"].is_string());
        assert_eq!(container["mountPoints"][0]["sourceVolume"].as_str(), volume);
        assert_eq!(container["mountPoints"][0]["containerPath"], "/data");
    }
    let script = shards["containerProperties"]["command"][2].as_str().unwrap();
    let aws_index = INDEX_VARIABLES.iter().find(|name| name.starts_with("AWS_BATCH")).unwrap();
    assert!(shell_variables(script).contains(&aws_index.to_string()), "{script}");
    assert!(script.contains("run --resume") && script.contains("manifest.json"), "a retried child resumes: {script}");
    let environment = shards["containerProperties"]["environment"].as_array().unwrap();
    assert!(environment.iter().any(|variable| variable["name"] == SHARD_COUNT), "{SHARD_COUNT} names the array size");
    let on_exit = &shards["retryStrategy"]["evaluateOnExit"][0];
    assert_eq!((on_exit["onExitCode"].as_str(), on_exit["action"].as_str()), (Some("2"), Some("EXIT")));
    assert!(shards["retryStrategy"]["attempts"].as_u64().unwrap() > 1);
    assert!(merge["containerProperties"]["command"][2].as_str().unwrap().contains("tickbot merge /data/shards/*"));

    // The container file builds the binary this crate names, from this repository.
    let dockerfile = std::fs::read_to_string(deploy.join("Dockerfile")).unwrap();
    assert!(dockerfile.contains("cargo build --release --locked --bin tickbot"));
    for line in dockerfile.lines().filter(|line| line.starts_with("COPY ") && !line.contains("--from")) {
        let source = line.split_whitespace().nth(1).unwrap();
        assert!(source == "." || repo_path(source).exists(), "{line}: no {source} in the repository");
    }
}
