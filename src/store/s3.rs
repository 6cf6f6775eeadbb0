//! S3 and S3-compatible object storage under Lance datasets (the team's vector cache,
//! `remote_cache.rs`), without the AWS SDK.
//!
//! Lance's own S3 support brings the AWS SDK and a second TLS stack into the build. This is the
//! S3 client of the `object_store` crate Lance already reads and writes through, configured from
//! the standard environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
//! `AWS_REGION`, `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`; without keys, the web-identity,
//! container and instance credentials `object_store` looks up itself) and sending its requests
//! through the `reqwest` client already in the tree (rustls, the system's root certificates).
//! Credentials are never read from the project's configuration and never logged.
//!
//! Timeouts are short and retries few: the cache is an accelerator, and a store that does not
//! answer must cost the background pass seconds, never a tool call anything.

use http_body_util::BodyExt;
use lance_io::object_store::{
    DEFAULT_CLOUD_IO_PARALLELISM, ObjectStore, ObjectStoreParams, ObjectStoreProvider,
    ObjectStoreRegistry,
};
use object_store::aws::AmazonS3Builder;
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse,
    HttpResponseBody, HttpService,
};
use object_store::{BackoffConfig, ClientConfigKey, ClientOptions, RetryConfig};
use std::sync::Arc;
use std::time::Duration;
use url::Url;

/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long one request may take, body included (a read of a thousand vectors is ~1.5 MB).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);
/// Retries of one request (connection errors, 5xx, throttling), within this much time.
const MAX_RETRIES: usize = 2;
const RETRY_WITHIN: Duration = Duration::from_secs(15);
/// Downloads retried by Lance itself after a read was cut short.
const DOWNLOAD_RETRIES: usize = 2;

/// Lance's registry of object stores with `s3://` served by [`S3Provider`] (and the local and
/// in-memory stores Lance always has, so a cache can also live in a shared directory).
pub(super) fn registry() -> Arc<ObjectStoreRegistry> {
    let registry = ObjectStoreRegistry::default();
    registry.insert("s3", Arc::new(S3Provider));
    Arc::new(registry)
}

#[derive(Debug)]
struct S3Provider;

#[async_trait::async_trait]
impl ObjectStoreProvider for S3Provider {
    async fn new_store(
        &self,
        base_path: Url,
        _params: &ObjectStoreParams,
    ) -> lance_core::Result<ObjectStore> {
        let s3 = AmazonS3Builder::from_env()
            .with_url(base_path.as_str())
            .with_http_connector(ReqwestConnector)
            .with_retry(RetryConfig {
                backoff: BackoffConfig::default(),
                max_retries: MAX_RETRIES,
                retry_timeout: RETRY_WITHIN,
            })
            .build()
            .map_err(|err| lance_core::Error::invalid_input(format!("S3 store: {err}")))?;
        Ok(ObjectStore::new(
            Arc::new(s3),
            base_path,
            None,
            None,
            false,
            // S3 lists keys in lexical order.
            true,
            DEFAULT_CLOUD_IO_PARALLELISM,
            DOWNLOAD_RETRIES,
            None,
        ))
    }
}

/// Sends `object_store`'s requests through `reqwest`.
#[derive(Debug)]
struct ReqwestConnector;

impl HttpConnector for ReqwestConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        // Plain HTTP only when asked for (`AWS_ALLOW_HTTP=true`, a test server on loopback).
        let allow_http = options
            .get_config_value(&ClientConfigKey::AllowHttp)
            .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1"));
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .https_only(!allow_http)
            .build()
            .map_err(|err| object_store::Error::Generic {
                store: "S3",
                source: Box::new(err),
            })?;
        Ok(HttpClient::new(Reqwest(client)))
    }
}

#[derive(Debug)]
struct Reqwest(reqwest::Client);

#[async_trait::async_trait]
impl HttpService for Reqwest {
    async fn call(&self, req: HttpRequest) -> Result<HttpResponse, HttpError> {
        let (parts, body) = req.into_parts();
        let url = parts
            .uri
            .to_string()
            .parse()
            .map_err(|err| HttpError::new(HttpErrorKind::Request, err))?;
        let mut request = reqwest::Request::new(parts.method, url);
        *request.headers_mut() = parts.headers;
        *request.body_mut() = Some(reqwest::Body::wrap(body));
        let response = self.0.execute(request).await.map_err(http_error)?;
        let response: http::Response<reqwest::Body> = response.into();
        let (parts, body) = response.into_parts();
        let body = HttpResponseBody::new(body.map_err(http_error));
        Ok(HttpResponse::from_parts(parts, body))
    }
}

/// The kind `object_store` retries by.
fn http_error(err: reqwest::Error) -> HttpError {
    let kind = if err.is_timeout() {
        HttpErrorKind::Timeout
    } else if err.is_connect() {
        HttpErrorKind::Connect
    } else if err.is_decode() {
        HttpErrorKind::Decode
    } else if err.is_body() {
        HttpErrorKind::Interrupted
    } else {
        HttpErrorKind::Request
    };
    HttpError::new(kind, err)
}
