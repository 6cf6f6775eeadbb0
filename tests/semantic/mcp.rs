//! The MCP server end to end over stdio: `sync_index` with a progress token sends
//! `notifications/progress` (increasing, before the result) and returns counts;
//! `semantic_search` then finds code by words.

use crate::support::project;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

struct Server {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Server {
    fn start(root: &std::path::Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_code-intel"))
            .args(["serve", "--root"])
            .arg(root)
            .env("CODE_INTEL_EMBEDDER", "fake")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Server {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads messages until the response to `id`; returns it and the notifications before it.
    fn response(&mut self, id: u64) -> (Value, Vec<Value>) {
        let mut notes = Vec::new();
        for line in self.lines.by_ref() {
            let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
            if message["id"] == json!(id) {
                return (message, notes);
            }
            notes.push(message);
        }
        panic!("server closed before answering {id}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn sync_index_reports_progress_and_semantic_search_answers() {
    let files: Vec<(String, String)> = (0..60)
        .map(|i| (format!("src/m{i}.py"), format!("def task_{i}(x):\n    return x + {i}\n")))
        .chain([(
            "src/billing/invoice.py".to_string(),
            "class InvoiceMailer:\n    def send_invoice(self, order):\n        smtp.send(order.email)\n".to_string(),
        )])
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let dir = project(&refs);
    let mut server = Server::start(dir.path());
    server.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}));
    let (init, _) = server.response(1);
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    server.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "sync_index", "arguments": {"force": true}, "_meta": {"progressToken": "sync-1"}}}),
    );
    let (result, notes) = server.response(2);
    let out = &result["result"]["structuredContent"];
    assert_eq!(result["result"]["isError"], json!(false), "{result}");
    assert_eq!(out["forest"]["added"], 61, "{out}");
    assert_eq!(out["embedding"]["state"], "done", "{out}");
    let progress: Vec<f64> = notes
        .iter()
        .filter(|n| {
            n["method"] == "notifications/progress" && n["params"]["progressToken"] == "sync-1"
        })
        .map(|n| n["params"]["progress"].as_f64().unwrap())
        .collect();
    assert!(progress.len() >= 2, "progress notifications: {notes:?}");
    assert!(progress.windows(2).all(|w| w[0] <= w[1]), "{progress:?}");
    assert!(
        progress.last().copied().unwrap_or(0.0) >= 50.0,
        "{progress:?}"
    );

    server.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "semantic_search", "arguments": {"query": "send invoice mail to the customer", "n_results": 3}}}));
    let (result, _) = server.response(3);
    let out = &result["result"]["structuredContent"];
    assert_eq!(out["results"][0]["file"], "src/billing/invoice.py", "{out}");
    assert_eq!(out["index_status"]["model"], "ready");
    assert!(
        out["signals"]
            .as_array()
            .unwrap()
            .contains(&json!("vector"))
    );
}
