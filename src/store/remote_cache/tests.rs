use super::*;

const DIM: usize = 4;

fn key(n: u8) -> Key {
    [n; 32]
}

fn vector(n: u8) -> Vec<f32> {
    (0..DIM).map(|i| f32::from(n) + i as f32 / 10.0).collect()
}

fn cache_in(dir: &tempfile::TempDir) -> RemoteCache {
    RemoteCache::new(dir.path().join("team").to_str().unwrap(), DIM).unwrap()
}

#[test]
fn published_vectors_are_found_and_others_are_misses() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache_in(&dir);
    let items: Vec<(Key, Vec<f32>)> = (1..=5).map(|n| (key(n), vector(n))).collect();
    let report = cache.append(&items).unwrap();
    assert_eq!((report.offered, report.present, report.added), (5, 0, 5));
    cache.index_keys().unwrap();

    // A reader in another process sees what was published.
    let reader = cache_in(&dir);
    assert_eq!(reader.status().state, RemoteState::Untried);
    let found = reader.fetch(&[key(2), key(9), key(5)]);
    assert_eq!(found, vec![Some(vector(2)), None, Some(vector(5))]);
    let status = reader.status();
    assert_eq!(status.state, RemoteState::Ok);
    assert_eq!((status.hits, status.misses), (2, 1));
}

#[test]
fn publishing_again_appends_only_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache_in(&dir);
    let first: Vec<(Key, Vec<f32>)> = (1..=3).map(|n| (key(n), vector(n))).collect();
    cache.append(&first).unwrap();
    cache.index_keys().unwrap();
    // A repeated text in one offer counts once.
    let mut second: Vec<(Key, Vec<f32>)> = (2..=6).map(|n| (key(n), vector(n))).collect();
    second.push((key(6), vector(6)));
    let report = cache.append(&second).unwrap();
    // Folding the new rows into the index.
    cache.index_keys().unwrap();
    assert_eq!((report.offered, report.present, report.added), (5, 2, 3));
    let (keys, rows) = cache.keys().unwrap();
    assert_eq!((keys.len(), rows), (6, 6));
}

#[test]
fn an_empty_location_is_a_state_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache_in(&dir);
    assert_eq!(cache.fetch(&[key(1), key(2)]), vec![None, None]);
    let status = cache.status();
    assert_eq!(status.state, RemoteState::Empty);
    assert_eq!((status.hits, status.misses), (0, 2));
    assert!(status.retry_in_seconds.is_some());
}

#[test]
fn a_vector_of_another_size_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache_in(&dir);
    let err = cache.append(&[(key(1), vec![1.0; DIM + 1])]).unwrap_err();
    assert!(err.to_string().contains("5-d vector"), "{err}");
}

#[test]
fn unsupported_locations_are_refused_with_what_works() {
    for uri in ["gs://bucket/x", "https://example.com/x", "s3://", "  "] {
        let err = match RemoteCache::new(uri, DIM) {
            Err(err) => err.to_string(),
            Ok(_) => panic!("{uri} accepted"),
        };
        assert!(err.contains("embedding_cache_uri"), "{uri}: {err}");
    }
    assert!(RemoteCache::new("s3://bucket/team/", DIM).is_ok());
}

#[test]
fn failures_are_told_apart_without_credentials() {
    let cases = [
        (
            "Generic S3 error: Error performing list request: Client error with status 404 Not Found: <?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code></Error>",
            RemoteState::NoBucket,
        ),
        (
            "Client error with status 403 Forbidden: <Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist</Message></Error>",
            RemoteState::Denied,
        ),
        (
            "Client error with status 403 Forbidden: <Code>SignatureDoesNotMatch</Code>",
            RemoteState::Denied,
        ),
        (
            "Generic S3 error: Error after 2 retries in 1.2s, max_retries:2, retry_timeout:15s, source:error sending request for url (http://127.0.0.1:9/b): client error (Connect)",
            RemoteState::Unreachable,
        ),
        ("the query planner gave up", RemoteState::Error),
    ];
    for (text, state) in cases {
        let (got, detail) = Failure::Store(text.into()).describe();
        assert_eq!(got, state, "{text}");
        assert!(!detail.contains("<Error>"), "{detail}");
    }
    let (state, detail) = Failure::TimedOut.describe();
    assert_eq!(state, RemoteState::Unreachable);
    assert!(detail.contains("no answer"));
}

#[test]
fn backoff_doubles_up_to_its_bound() {
    assert_eq!(Health::backoff(1), FIRST_BACKOFF);
    assert_eq!(Health::backoff(2), FIRST_BACKOFF * 2);
    assert_eq!(Health::backoff(30), MAX_BACKOFF);
}

#[test]
fn publishers_at_once_both_succeed_and_leave_every_key() {
    // Several rounds: the two commits race differently each time (append against append, index
    // build against index build or fold).
    for round in 0..4u8 {
        let dir = tempfile::tempdir().unwrap();
        let publishers: Vec<std::thread::JoinHandle<()>> = (0..2u8)
            .map(|p| {
                let path = dir.path().join("team");
                std::thread::spawn(move || {
                    let cache = RemoteCache::new(path.to_str().unwrap(), DIM).unwrap();
                    // Overlapping sets: 10..=20 for the first, 15..=25 for the second.
                    let items: Vec<(Key, Vec<f32>)> = (10 + 5 * p..=20 + 5 * p)
                        .map(|n| (key(n), vector(n)))
                        .collect();
                    cache.append(&items).unwrap();
                    cache.index_keys().unwrap();
                })
            })
            .collect();
        for publisher in publishers {
            publisher.join().expect("a publisher failed");
        }
        let reader = cache_in(&dir);
        let (keys, rows) = reader.keys().unwrap();
        assert_eq!(keys.len(), 16, "round {round}");
        // A text both appended at once may be held twice, never lost.
        assert!((16..=22).contains(&rows), "round {round}: {rows} rows");
        let all: Vec<Key> = (10..=25).map(key).collect();
        assert!(
            reader.fetch(&all).iter().all(Option::is_some),
            "round {round}"
        );
    }
}
