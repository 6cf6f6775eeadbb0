//! A Japanese → English glossary of software vocabulary, bridging Japanese requests to the
//! English identifiers, paths and comments of code; and which English actions reverse each other.
//!
//! Japanese requests share almost no tokens with code, so lexical, path and symbol signals score
//! nothing and everything rests on the embedding model. Most software vocabulary in Japanese is
//! either a katakana loanword (ログイン = login) or a fixed kanji compound (注文 = order), and the
//! set is small and stable, so a hand-written table recovers those signals. Expansions are used as
//! extra, lower-weighted query terms; they never replace the dense signal.

/// `(Japanese, English terms)`. Longer entries may overlap shorter ones; all matches are used.
const ENTRIES: &[(&str, &[&str])] = &[
    // accounts and access
    ("ログイン", &["login", "auth", "signin", "session"]),
    ("ログアウト", &["logout", "signout", "session"]),
    ("サインイン", &["signin", "login"]),
    ("サインアップ", &["signup", "register"]),
    ("認証", &["auth", "authenticate", "authentication", "login"]),
    (
        "認可",
        &["authorize", "authorization", "policy", "permission"],
    ),
    ("権限", &["permission", "role", "policy", "authorize"]),
    ("ロール", &["role"]),
    ("パスワード", &["password"]),
    ("ユーザー", &["user"]),
    ("ユーザ", &["user"]),
    ("利用者", &["user"]),
    ("会員", &["member", "user"]),
    ("アカウント", &["account"]),
    ("登録", &["register", "registration", "create", "store"]),
    ("プロフィール", &["profile"]),
    ("トークン", &["token"]),
    ("セッション", &["session"]),
    ("クッキー", &["cookie"]),
    ("管理者", &["admin"]),
    ("管理画面", &["admin", "dashboard"]),
    ("招待", &["invite", "invitation"]),
    ("メール", &["mail", "email"]),
    ("通知", &["notification", "notify"]),
    // commerce
    ("注文", &["order"]),
    ("受注", &["order"]),
    ("発注", &["purchase", "order"]),
    ("商品", &["product", "item"]),
    ("製品", &["product"]),
    ("在庫", &["stock", "inventory"]),
    ("カート", &["cart"]),
    ("買い物かご", &["cart"]),
    ("決済", &["payment", "checkout", "charge"]),
    ("支払", &["payment", "pay"]),
    ("請求", &["invoice", "billing", "charge"]),
    ("請求書", &["invoice"]),
    ("価格", &["price"]),
    ("値段", &["price"]),
    ("料金", &["price", "fee", "billing"]),
    ("金額", &["amount", "total", "price"]),
    ("合計", &["total", "sum"]),
    ("小計", &["subtotal"]),
    ("税", &["tax"]),
    ("消費税", &["tax"]),
    ("割引", &["discount", "coupon"]),
    ("クーポン", &["coupon"]),
    ("配送", &["shipping", "delivery", "shipment"]),
    ("送料", &["shipping"]),
    ("顧客", &["customer", "client"]),
    ("取引", &["transaction"]),
    ("返金", &["refund"]),
    ("キャンセル", &["cancel"]),
    ("購入", &["purchase", "checkout", "buy"]),
    ("売上", &["sales", "revenue"]),
    ("カテゴリ", &["category"]),
    ("分類", &["category", "classify"]),
    ("タグ", &["tag"]),
    ("レビュー", &["review"]),
    ("評価", &["rating", "review", "evaluate"]),
    ("お気に入り", &["favorite", "wishlist"]),
    ("通貨", &["currency"]),
    ("住所", &["address"]),
    ("店舗", &["store", "shop"]),
    ("ショップ", &["shop"]),
    // data
    ("データベース", &["database", "db"]),
    ("テーブル", &["table", "schema", "migration"]),
    ("マイグレーション", &["migration"]),
    ("カラム", &["column"]),
    ("列", &["column"]),
    ("スキーマ", &["schema"]),
    ("モデル", &["model"]),
    ("保存", &["save", "store", "persist", "repository"]),
    ("永続化", &["persist", "repository", "save"]),
    ("格納", &["store", "save"]),
    ("読み込", &["load", "read"]),
    ("書き込", &["write", "save"]),
    ("取得", &["get", "fetch", "find", "retrieve"]),
    ("検索", &["search", "find", "query"]),
    ("一覧", &["list", "index"]),
    ("詳細", &["detail", "show"]),
    ("作成", &["create", "make", "new"]),
    ("新規", &["create", "new"]),
    ("追加", &["add", "create", "append"]),
    ("更新", &["update", "refresh"]),
    ("編集", &["edit", "update"]),
    ("変更", &["change", "update", "modify"]),
    ("削除", &["delete", "remove", "destroy"]),
    ("複製", &["copy", "clone", "duplicate"]),
    ("関連", &["relation", "related", "association"]),
    ("リレーション", &["relation", "relationship"]),
    ("外部キー", &["foreign", "key"]),
    ("主キー", &["primary", "key"]),
    ("インデックス", &["index"]),
    ("クエリ", &["query"]),
    ("トランザクション", &["transaction"]),
    ("キャッシュ", &["cache"]),
    ("一時", &["temp", "temporary", "cache"]),
    ("履歴", &["history", "log"]),
    ("ログ", &["log", "logger", "logging"]),
    ("記録", &["record", "log"]),
    ("集計", &["aggregate", "report", "stats"]),
    ("統計", &["stats", "statistics", "metrics"]),
    ("レポート", &["report"]),
    ("翻訳", &["translation", "translate", "locale", "i18n"]),
    ("多言語", &["translation", "locale", "i18n"]),
    ("言語", &["language", "locale", "lang"]),
    ("日付", &["date"]),
    ("時刻", &["time", "timestamp"]),
    ("時間", &["time", "duration"]),
    ("期限", &["expire", "deadline", "expiry"]),
    ("有効期限", &["expire", "expiry", "ttl"]),
    ("画像", &["image", "photo", "picture"]),
    ("写真", &["photo", "image"]),
    ("ファイル", &["file"]),
    ("アップロード", &["upload"]),
    ("ダウンロード", &["download"]),
    ("添付", &["attachment"]),
    ("エクスポート", &["export"]),
    ("インポート", &["import"]),
    ("バックアップ", &["backup"]),
    ("同期", &["sync", "synchronize"]),
    ("変換", &["convert", "transform", "parse"]),
    ("解析", &["parse", "parser", "analyze"]),
    ("パース", &["parse", "parser"]),
    ("フォーマット", &["format", "formatter"]),
    ("整形", &["format", "formatter"]),
    ("シリアライズ", &["serialize", "serializer"]),
    ("エンコード", &["encode", "encoding"]),
    ("デコード", &["decode"]),
    ("暗号化", &["encrypt", "crypto", "cipher"]),
    ("復号", &["decrypt"]),
    ("ハッシュ", &["hash"]),
    ("圧縮", &["compress", "zip"]),
    // web and application structure
    ("ルーティング", &["route", "router", "routes"]),
    ("ルート", &["route", "router"]),
    ("コントローラ", &["controller"]),
    ("ミドルウェア", &["middleware"]),
    ("リクエスト", &["request"]),
    ("レスポンス", &["response"]),
    ("エンドポイント", &["endpoint", "route", "api"]),
    ("画面", &["view", "page", "screen"]),
    ("ページ", &["page"]),
    ("ページネーション", &["paginate", "pagination"]),
    ("ページング", &["paginate", "pagination"]),
    ("テンプレート", &["template", "view"]),
    ("ビュー", &["view"]),
    ("コンポーネント", &["component"]),
    ("フォーム", &["form"]),
    ("入力", &["input", "form"]),
    ("ボタン", &["button"]),
    ("メニュー", &["menu", "nav", "navigation"]),
    ("ナビゲーション", &["navigation", "nav"]),
    ("ヘッダー", &["header"]),
    ("フッター", &["footer"]),
    ("サイドバー", &["sidebar"]),
    ("モーダル", &["modal", "dialog"]),
    ("ダイアログ", &["dialog", "modal"]),
    ("スタイル", &["style", "css"]), // a word here: not a language id
    ("テーマ", &["theme"]),
    ("色", &["color", "colour"]),
    ("レイアウト", &["layout"]),
    ("レスポンシブ", &["responsive", "breakpoint", "screen"]),
    ("アイコン", &["icon"]),
    ("状態", &["state", "status"]),
    ("ステータス", &["status"]),
    ("状態管理", &["state", "store"]),
    ("ストア", &["store"]),
    ("イベント", &["event"]),
    ("リスナー", &["listener"]),
    ("フック", &["hook"]),
    ("コールバック", &["callback"]),
    ("ハンドラ", &["handler"]),
    ("サービス", &["service"]),
    ("リポジトリ", &["repository"]),
    ("ファクトリ", &["factory"]),
    ("シーダー", &["seeder", "seed"]),
    ("依存", &["dependency", "inject", "require"]),
    ("依存関係", &["dependency", "dependencies", "require"]),
    ("注入", &["inject", "injection"]),
    ("プラグイン", &["plugin"]),
    ("拡張", &["extension", "extend"]),
    ("設定", &["config", "configuration", "settings"]),
    ("構成", &["config", "configuration"]),
    ("環境変数", &["env", "environment"]),
    ("環境", &["env", "environment"]),
    ("初期化", &["init", "initialize", "setup", "bootstrap"]),
    ("起動", &["start", "boot", "bootstrap", "main"]),
    ("終了", &["stop", "shutdown", "exit"]),
    ("実行", &["run", "execute"]),
    ("処理", &["process", "handle"]),
    ("非同期", &["async", "await", "queue"]),
    ("並列", &["parallel", "concurrent"]),
    ("スレッド", &["thread"]),
    ("キュー", &["queue", "job"]),
    ("ジョブ", &["job", "queue"]),
    ("バッチ", &["batch", "job"]),
    ("スケジュール", &["schedule", "cron"]),
    ("定期", &["schedule", "cron", "periodic"]),
    ("タイマー", &["timer"]),
    ("タイムアウト", &["timeout"]),
    ("リトライ", &["retry"]),
    ("再試行", &["retry"]),
    ("接続", &["connect", "connection"]),
    ("クライアント", &["client"]),
    ("サーバー", &["server"]),
    ("サーバ", &["server"]),
    ("通信", &["http", "client", "request"]),
    ("外部", &["external", "api", "client"]),
    ("連携", &["integration", "webhook", "client"]),
    ("ウェブフック", &["webhook"]),
    ("プロキシ", &["proxy"]),
    ("ソケット", &["socket", "websocket"]),
    ("エラー", &["error", "exception"]),
    ("例外", &["exception", "error"]),
    ("エラー処理", &["error", "exception", "handler"]),
    ("警告", &["warning", "warn"]),
    (
        "バリデーション",
        &["validation", "validate", "validator", "rules"],
    ),
    ("検証", &["validate", "validation", "verify"]),
    ("入力チェック", &["validate", "validation"]),
    ("チェック", &["check", "validate"]),
    ("制限", &["limit", "throttle", "rate"]),
    ("レート制限", &["rate", "limit", "throttle"]),
    ("上限", &["limit", "max"]),
    ("下限", &["min", "minimum"]),
    ("最大", &["max", "maximum"]),
    ("最小", &["min", "minimum"]),
    ("並び替え", &["sort", "order"]),
    ("ソート", &["sort"]),
    ("絞り込み", &["filter"]),
    ("フィルタ", &["filter"]),
    ("重複", &["duplicate", "unique", "dedupe"]),
    ("比較", &["compare", "diff"]),
    ("差分", &["diff", "delta"]),
    ("計算", &["calculate", "compute"]),
    ("算出", &["calculate", "compute"]),
    ("集約", &["aggregate"]),
    ("変数", &["variable", "var"]),
    ("定数", &["constant", "const"]),
    ("関数", &["function", "func"]),
    ("メソッド", &["method"]),
    ("クラス", &["class"]),
    ("インターフェース", &["interface"]),
    ("型", &["type"]),
    ("引数", &["argument", "param", "parameter"]),
    ("戻り値", &["return"]),
    ("テスト", &["test", "spec"]),
    ("単体テスト", &["unit", "test"]),
    ("モック", &["mock"]),
    ("デバッグ", &["debug"]),
    ("パフォーマンス", &["performance", "perf", "benchmark"]),
    ("性能", &["performance", "benchmark"]),
    ("メモリ", &["memory"]),
    ("セキュリティ", &["security"]),
    ("脆弱性", &["vulnerability", "security"]),
    ("サニタイズ", &["sanitize", "escape"]),
    ("エスケープ", &["escape"]),
    ("ミドルウエア", &["middleware"]),
    ("コマンド", &["command", "cli"]),
    ("引用", &["quote"]),
    ("記事", &["post", "article"]),
    ("投稿", &["post", "submit"]),
    ("コメント", &["comment"]),
    ("いいね", &["like"]),
    ("フォロー", &["follow"]),
    ("メッセージ", &["message"]),
    ("チャット", &["chat", "message"]),
    ("予約", &["reservation", "booking"]),
    ("予定", &["schedule", "event", "calendar"]),
    ("カレンダー", &["calendar"]),
    ("地図", &["map"]),
    ("位置", &["location", "position"]),
    ("距離", &["distance"]),
    ("グラフ", &["graph", "chart"]),
    ("木構造", &["tree"]),
    ("ツリー", &["tree"]),
    ("ノード", &["node"]),
    ("トークナイザ", &["tokenizer", "tokenize"]),
    ("字句", &["lexer", "token"]),
    ("構文", &["syntax", "parser", "grammar"]),
    ("埋め込み", &["embedding", "embed"]),
    ("ベクトル", &["vector", "embedding"]),
    ("類似", &["similarity", "similar"]),
    ("分割", &["split", "chunk"]),
    ("チャンク", &["chunk"]),
    ("ストリーム", &["stream"]),
    ("バッファ", &["buffer"]),
    ("プロセス", &["process"]),
    ("シグナル", &["signal"]),
    ("パス", &["path"]),
    ("ディレクトリ", &["directory", "dir"]),
    ("フォルダ", &["folder", "directory"]),
    ("ワークスペース", &["workspace"]),
    ("プロジェクト", &["project"]),
    ("バージョン", &["version"]),
    ("ライセンス", &["license"]),
    ("ドキュメント", &["docs", "documentation", "readme"]),
    ("説明", &["description", "readme", "docs"]),
    ("ヘルプ", &["help", "usage"]),
    ("使い方", &["usage", "readme", "help"]),
    // everyday verbs and nouns of web applications
    ("確認", &["confirm", "verify", "check"]),
    ("承認", &["approve", "approval"]),
    ("拒否", &["reject", "deny"]),
    ("表示", &["show", "display", "render", "view"]),
    ("形式", &["format"]),
    ("生成", &["generate", "create", "build"]),
    ("発行", &["issue", "generate", "create"]),
    ("送信", &["send", "submit"]),
    ("受信", &["receive", "inbox"]),
    ("再送", &["resend"]),
    ("リセット", &["reset"]),
    ("再設定", &["reset"]),
    ("リフレッシュ", &["refresh"]),
    ("解除", &["un", "remove", "cancel", "disable"]),
    ("有効化", &["activate", "enable"]),
    ("無効化", &["deactivate", "disable"]),
    ("退会", &["delete", "deactivate", "withdraw"]),
    ("適用", &["apply"]),
    ("完了", &["complete", "done", "finish"]),
    ("開始", &["start", "begin"]),
    ("停止", &["stop", "halt"]),
    ("再起動", &["restart", "reload"]),
    ("待ち", &["wait"]),
    ("待機", &["wait"]),
    ("監視", &["monitor", "watch"]),
    ("ヘルス", &["health"]),
    ("公開", &["publish", "public"]),
    ("非公開", &["private", "unpublish"]),
    ("下書き", &["draft"]),
    ("共有", &["share"]),
    ("購読", &["subscribe", "subscription"]),
    ("移動", &["move"]),
    ("復元", &["restore"]),
    ("アーカイブ", &["archive"]),
    ("ブックマーク", &["bookmark"]),
    ("アイテム", &["item"]),
    ("項目", &["item", "field"]),
    ("数量", &["quantity", "qty"]),
    ("件数", &["count", "total"]),
    ("アドレス", &["address"]),
    ("メールアドレス", &["email", "address"]),
    ("タイトル", &["title"]),
    ("本文", &["body", "content"]),
    ("内容", &["content", "body"]),
    ("名前", &["name"]),
    ("スラッグ", &["slug"]),
    ("サムネイル", &["thumbnail"]),
    ("アバター", &["avatar"]),
    ("作成者", &["author", "creator", "owner"]),
    ("著者", &["author"]),
    ("所有者", &["owner"]),
    ("初期", &["initial", "init", "default"]),
    ("セール", &["sale"]),
    ("発送", &["ship", "shipping", "deliver"]),
    ("出荷", &["ship", "shipment"]),
    ("引き落とし", &["deduct", "decrease", "charge"]),
    ("ダッシュボード", &["dashboard"]),
    ("タイムライン", &["timeline", "feed"]),
    ("フィード", &["feed"]),
    ("リダイレクト", &["redirect"]),
    ("進捗", &["progress"]),
    // general vocabulary of applications and their screens
    ("アプリケーション", &["application", "app"]),
    ("アプリ", &["app", "application"]),
    ("選択肢", &["option", "choice"]),
    ("選択", &["select", "choose"]),
    ("方法", &["method", "way"]),
    ("切り替え", &["switch", "toggle"]),
    ("切替", &["switch", "toggle"]),
    ("管理", &["manage", "admin"]),
    ("必須", &["required", "require"]),
    ("任意", &["optional"]),
    ("確定", &["confirm", "complete"]),
    ("明細", &["item", "line"]),
    ("バッジ", &["badge"]),
    ("電話番号", &["phone", "telephone"]),
    ("電話", &["phone", "telephone"]),
    ("番号", &["number", "num"]),
    ("チーム", &["team"]),
    ("組織", &["organization", "org"]),
    ("会社", &["company"]),
    ("部署", &["department"]),
    ("従業員", &["employee", "staff"]),
    ("社員", &["employee", "staff"]),
    ("情報", &["info", "information"]),
    ("許可", &["allow", "permit"]),
    ("禁止", &["forbid", "deny"]),
    ("防止", &["prevent", "guard"]),
    ("除外", &["exclude", "omit"]),
    ("一括", &["bulk", "batch"]),
    ("自動", &["auto", "automatic"]),
    ("手動", &["manual"]),
    ("種類", &["type", "kind"]),
    ("強度", &["strength"]),
    ("判定", &["check", "determine"]),
    ("アクセス", &["access"]),
    ("マスク", &["mask"]),
    ("カード", &["card"]),
    ("国", &["country"]),
    ("都市", &["city"]),
    ("郵便番号", &["zip", "postal"]),
    ("月別", &["monthly", "month"]),
    ("日別", &["daily", "day"]),
    ("発生", &["raise", "throw"]),
    ("昇格", &["promote", "elevate"]),
    ("デフォルト", &["default"]),
    ("初期値", &["default", "initial"]),
    ("優先度", &["priority"]),
    ("優先", &["priority", "prefer"]),
    ("雛形", &["template", "scaffold"]),
    ("親子", &["parent", "child"]),
    ("バリエーション", &["variant", "variation"]),
    ("不足", &["low", "insufficient"]),
    ("死活監視", &["health", "ping"]),
    ("理由", &["reason"]),
    ("年齢", &["age"]),
    ("生年月日", &["birthdate", "birthday"]),
    ("性別", &["gender"]),
    ("氏名", &["name", "fullname"]),
    ("ロケール", &["locale"]),
    ("タイムゾーン", &["timezone", "tz"]),
    ("見積", &["quote", "estimate"]),
    ("領収書", &["receipt"]),
    ("契約", &["contract"]),
    ("閲覧", &["view", "browse"]),
    ("既読", &["read", "seen"]),
    ("未読", &["unread"]),
    ("送信者", &["sender"]),
    ("受信者", &["recipient", "receiver"]),
    ("宛先", &["recipient", "address"]),
    ("件名", &["subject"]),
    ("動画", &["video"]),
    ("音声", &["audio", "voice"]),
    ("上書き", &["overwrite", "override"]),
    ("置換", &["replace"]),
    ("結合", &["join", "merge"]),
    ("統合", &["merge", "integrate"]),
    ("反映", &["apply", "sync"]),
    ("取り消し", &["cancel", "revoke"]),
    // The verb as a request ends with it (インポートを取り消す): read through 消す it was "back".
    ("取り消す", &["cancel", "revoke"]),
    ("取消", &["cancel", "revoke"]),
    ("失効", &["revoke", "expire"]),
    ("期限切れ", &["expired", "expire"]),
    ("再発行", &["reissue", "regenerate"]),
    ("正規化", &["normalize"]),
    ("一意", &["unique"]),
    ("乱数", &["random"]),
    ("識別子", &["id", "identifier"]),
    ("参加", &["join", "participate"]),
    ("投票", &["vote"]),
    ("ランキング", &["ranking", "rank"]),
    ("おすすめ", &["recommend", "recommendation"]),
    ("人気", &["popular"]),
    ("最新", &["latest", "recent"]),
    ("新着", &["latest", "new"]),
    ("非表示", &["hide", "hidden"]),
    ("平均", &["average", "avg"]),
    ("トップページ", &["home", "index"]),
    ("ホーム", &["home"]),
    ("開発環境", &["development", "dev"]),
    ("本番", &["production", "prod"]),
    ("デプロイ", &["deploy"]),
    ("ビルド", &["build"]),
    ("パッケージ", &["package"]),
    ("モジュール", &["module"]),
    ("ライブラリ", &["library", "lib"]),
    ("失敗", &["fail", "failure"]),
    ("成功", &["success"]),
    ("結果", &["result"]),
    ("応答", &["response", "reply"]),
    ("返信", &["reply"]),
    ("転送", &["forward", "transfer"]),
    ("譲渡", &["transfer"]),
    ("移行", &["migrate", "migration"]),
    ("同意", &["consent", "agree"]),
    ("利用規約", &["terms"]),
    ("プライバシー", &["privacy"]),
    ("問い合わせ", &["contact", "inquiry"]),
    ("お知らせ", &["announcement", "notice"]),
    ("広告", &["ad", "advertisement"]),
    ("配送先", &["shipping", "address"]),
    ("会計", &["checkout", "billing"]),
    ("メンバー", &["member"]),
    ("グループ", &["group"]),
    ("ラベル", &["label"]),
    ("コード", &["code"]),
    ("レコード", &["record"]),
    ("国際化", &["i18n", "locale"]),
    ("ボーナス", &["bonus"]),
    ("ポイント", &["point", "points"]),
    // sign-in factors and words whose dictionary senses miss the software one
    ("二段階認証", &["2fa", "mfa", "totp", "otp"]),
    ("二要素認証", &["2fa", "mfa", "totp", "otp"]),
    ("多要素認証", &["mfa", "2fa", "totp", "otp"]),
    ("ワンタイムパスワード", &["otp", "totp"]),
    ("シングルサインオン", &["sso", "oauth", "oidc"]),
    ("不正", &["abuse", "fraud", "invalid"]),
    ("検出", &["detect", "detection"]),
    ("検知", &["detect", "detection"]),
    ("振替", &["transfer"]),
    ("送金", &["transfer", "send"]),
    ("一斉", &["bulk", "broadcast", "all"]),
    ("ピン留め", &["pin", "pinned"]),
    ("全文検索", &["fulltext", "search", "index"]),
    ("楽曲", &["song", "track"]),
    ("曲", &["song", "track"]),
    ("有効にする", &["enable", "activate"]),
    ("無効にする", &["disable", "deactivate"]),
    ("絞り込む", &["filter"]),
    // words the dictionary reads in their everyday sense or not at all: a compound the glossary
    // lacks is otherwise read through a shorter word inside it (曲線 as 曲, "song"; ロック解除 as
    // 解除's "un"), and a katakana word the project does not hold by sound is bridged to whatever
    // the model hears in it (プラン as `prune`). An entry's renderings are synonyms to the English
    // terms too (`english_synonyms`), so each holds only what the word means in every project:
    // 担当 is not `owner`, 関連付け not `link`
    ("曲線", &["curve", "chart"]),
    ("成長", &["growth", "grow"]),
    ("担当者", &["assignee", "assign"]),
    ("担当", &["assign"]),
    ("割り当て", &["assign", "assignment"]),
    ("割当", &["assign", "assignment"]),
    ("条件", &["condition", "criteria", "filter"]),
    ("候補", &["suggestion", "candidate"]),
    ("作業", &["work"]),
    ("計測", &["measure", "track"]),
    ("支出", &["expense", "spend", "bill"]),
    ("経費", &["expense"]),
    ("資金", &["fund", "money"]),
    ("有料", &["paid", "premium", "billing"]),
    ("無料", &["free"]),
    ("プラン", &["plan"]),
    ("配信", &["deliver", "send", "publish", "serve"]),
    ("予約投稿", &["schedule", "scheduled"]),
    ("予約配信", &["schedule", "scheduled"]),
    ("出欠", &["attendance", "rsvp"]),
    ("保護", &["protect", "protected"]),
    ("ロック", &["lock"]),
    ("ロック解除", &["unlock"]),
    // ロック lies inside ブロック: without its own entry, blocking a user would read as a lock
    ("ブロック", &["block"]),
    ("ブロック解除", &["unblock"]),
    ("関連付け", &["relation", "associate"]),
    ("不要", &["unused", "unnecessary", "orphan"]),
    ("意図的", &["intentional", "deliberate"]),
    ("デモ", &["demo"]),
    ("トランスコード", &["transcode"]),
    ("ホット", &["hot"]),
    ("トレーニング", &["training", "workout"]),
];

/// English terms for the Japanese vocabulary found in `query`, without repeats. A match lying
/// inside a longer match is ignored (ログ inside ログイン is not "log").
pub fn expand(query: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for (_, english) in expand_groups(query) {
        for term in english {
            if !out.contains(term) {
                out.push(term);
            }
        }
    }
    out
}

/// The Japanese words of `query` the glossary knows, each with its English renderings, in the
/// glossary's order and without repeats; a match inside a longer match is left out. Unlike
/// [`expand`], this keeps which renderings stand for the same word, so a caller can ask how many
/// of the request's words a text covers rather than how many renderings it happens to contain.
pub fn expand_groups(query: &str) -> Vec<(&'static str, &'static [&'static str])> {
    expand_groups_outside(query, &[])
}

/// [`expand_groups`] without the words lying inside any of the byte spans `covered` (a longer
/// word the project's own translations read, see [`cover`]).
pub fn expand_groups_outside(
    query: &str,
    covered: &[(usize, usize)],
) -> Vec<(&'static str, &'static [&'static str])> {
    let mut out: Vec<(&'static str, &'static [&'static str])> = Vec::new();
    for m in matches(query) {
        if inside(covered, m.start, m.end) {
            continue;
        }
        if !out.iter().any(|(j, _)| *j == m.japanese) {
            out.push((m.japanese, m.english));
        }
    }
    out
}

fn inside(spans: &[(usize, usize)], start: usize, end: usize) -> bool {
    spans.iter().any(|&(s, e)| s <= start && end <= e)
}

/// How a word of a project's translations lies over the glossary's words ([`cover`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cover {
    /// A compound over the glossary's words, read instead of them: a run of kanji and katakana
    /// only that holds two or more of them (編集履歴: 編集 and 履歴), or one and a kanji or
    /// katakana the glossary does not read (ユーザー名). A project that translates such a compound
    /// as one has said what it means (編集履歴 is "Revisions" in a wiki), which the glossary's
    /// words one by one do not.
    Compound,
    /// Exactly one of the glossary's words (記事), read beside the glossary's renderings.
    Word,
}

/// How the span `at..end` of `query` lies over the glossary's words, or `None` when it is
/// neither a compound of them nor one of them: a glossary word with its okurigana (ログインする)
/// is still that word, and a phrase is no compound (記事を保存, "save entry" in a feed reader's
/// catalogue, is the glossary's two words).
pub fn cover(query: &str, at: usize, end: usize) -> Option<Cover> {
    let found = matches(query);
    if found.iter().any(|m| m.start == at && m.end == end) {
        return Some(Cover::Word);
    }
    let compound_letter =
        |c: char| crate::lexical::is_kanji(c) || crate::lexical::is_katakana(c) || c == '・';
    if !query[at..end].chars().all(compound_letter) {
        return None;
    }
    let within = found
        .iter()
        .filter(|m| at <= m.start && m.end <= end)
        .count();
    let read = |i: usize| found.iter().any(|m| m.start <= i && i < m.end);
    let unread_content = query[at..end].char_indices().any(|(i, c)| {
        !read(at + i) && (crate::lexical::is_kanji(c) || crate::lexical::is_katakana(c))
    });
    (within >= 2 || (within == 1 && unread_content)).then_some(Cover::Compound)
}

/// Whether two of the glossary's words in `query` stand side by side (編集履歴), where a compound
/// of the two may be a word of its own ([`Cover::Compound`]).
pub fn has_adjacent_words(query: &str) -> bool {
    let found = matches(query);
    found.iter().any(|a| found.iter().any(|b| a.end == b.start))
}

/// One place a glossary word occurs in a query.
struct Match {
    start: usize,
    end: usize,
    japanese: &'static str,
    english: &'static [&'static str],
}

/// Where the glossary's words occur in `query`, in the glossary's order: a match lying inside a
/// longer match is left out (ログ inside ログイン is not "log"), and so is a katakana word that
/// splits a katakana word leaving a single kana beside it (ログ in ブログ): katakana compounds
/// join whole words (パスワードリセット), a lone kana is no word.
fn matches(query: &str) -> Vec<Match> {
    if !query.chars().any(crate::lexical::is_cjk) {
        return Vec::new();
    }
    let mut found: Vec<Match> = Vec::new();
    for (japanese, english) in ENTRIES {
        for (start, _) in query.match_indices(japanese) {
            found.push(Match {
                start,
                end: start + japanese.len(),
                japanese,
                english,
            });
        }
    }
    let inner = |m: &Match| {
        found
            .iter()
            .any(|o| o.start <= m.start && m.end <= o.end && (o.end - o.start) > (m.end - m.start))
    };
    let keep: Vec<bool> = found
        .iter()
        .map(|m| !inner(m) && !splits_katakana_word(query, m, &found))
        .collect();
    found
        .into_iter()
        .zip(keep)
        .filter_map(|(m, keep)| keep.then_some(m))
        .collect()
}

/// Whether the katakana match `m` leaves a single kana of the same katakana run on one side,
/// outside every other match.
fn splits_katakana_word(query: &str, m: &Match, all: &[Match]) -> bool {
    if !m.japanese.chars().all(crate::lexical::is_katakana) {
        return false;
    }
    let covered = |at: usize| all.iter().any(|o| o.start <= at && at < o.end);
    let before = query[..m.start].char_indices().rev();
    let after = query[m.end..].char_indices().map(|(i, c)| (i + m.end, c));
    lone_kana(before, &covered) || lone_kana(after, &covered)
}

/// Whether the katakana letters (the long mark aside) met walking `side` from a match, up to
/// anything else or another match, are exactly one.
fn lone_kana(side: impl Iterator<Item = (usize, char)>, covered: &dyn Fn(usize) -> bool) -> bool {
    let mut kana = 0;
    for (at, c) in side {
        if !crate::lexical::is_katakana(c) || covered(at) {
            break;
        }
        if c != 'ー' {
            kana += 1;
        }
    }
    kana == 1
}

/// English words the glossary renders the same Japanese word by, for an English `word`: every
/// entry whose first `renderings` include `word` gives its first `renderings` ("signup" →
/// signup, register; "delete" → delete, remove). Empty when no entry does.
pub fn english_synonyms(word: &str, renderings: usize) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for (_, english) in ENTRIES {
        let first = &english[..english.len().min(renderings)];
        if first.contains(&word) {
            for w in first {
                if !out.contains(w) {
                    out.push(w);
                }
            }
        }
    }
    out
}

/// The common actions on data, each as the words identifiers name it by: to make a record, to
/// read one or a list, to change one, to take one away. A request names one of them and its
/// code's names say it in any of the kind's words (「リンクの編集」 is `edit` or `update`);
/// the neighbour beside the right definition often does another (`create` beside `edit` in the
/// same handler).
const ACTION_KINDS: &[&[&str]] = &[
    &[
        "create", "add", "new", "insert", "make", "store", "build", "generate",
    ],
    &[
        "show", "view", "detail", "get", "display", "read", "fetch", "find", "load", "retrieve",
        "list", "index", "browse",
    ],
    &[
        "update", "edit", "change", "modify", "patch", "rename", "set",
    ],
    &[
        "delete", "remove", "destroy", "erase", "drop", "trash", "purge",
    ],
];

/// Which of the common actions on data ([`ACTION_KINDS`]) a stemmed English word names, as the
/// kinds' indexes (none for any other word).
pub fn action_kinds(stem: &str) -> impl Iterator<Item = usize> + '_ {
    // Stemmed once: the judge asks for every key of every symbol it scores.
    static STEMMED: std::sync::OnceLock<Vec<Vec<String>>> = std::sync::OnceLock::new();
    STEMMED
        .get_or_init(|| {
            ACTION_KINDS
                .iter()
                .map(|words| words.iter().map(|w| crate::lexical::stem(w)).collect())
                .collect()
        })
        .iter()
        .enumerate()
        .filter(move |(_, words)| words.iter().any(|w| w == stem))
        .map(|(kind, _)| kind)
}

/// English actions and their reverses, as identifiers name them. A symbol whose name says the
/// reverse of the request's action (`logout` for 「ログイン」, `unFollow` for "follow user",
/// `DisablePlugin` for "enable a plugin") shares the request's words, its file and most of its
/// meaning for the model, yet does the opposite. Only pairs whose two sides are never the same
/// feature: send and receive, or read and write, are often one, and so are import and export (an
/// importer parses the other system's export: `parseCsvExport` imports from Pocket).
const OPPOSITES: &[(&str, &str)] = &[
    ("login", "logout"),
    ("signin", "signout"),
    ("follow", "unfollow"),
    ("subscribe", "unsubscribe"),
    ("like", "unlike"),
    ("favorite", "unfavorite"),
    ("block", "unblock"),
    ("mute", "unmute"),
    ("pin", "unpin"),
    ("lock", "unlock"),
    ("archive", "unarchive"),
    ("publish", "unpublish"),
    ("install", "uninstall"),
    ("register", "unregister"),
    ("enable", "disable"),
    ("activate", "deactivate"),
    ("connect", "disconnect"),
    ("attach", "detach"),
    ("mount", "unmount"),
    ("encrypt", "decrypt"),
    ("encode", "decode"),
    ("serialize", "deserialize"),
    ("upload", "download"),
    ("approve", "reject"),
    ("approve", "decline"),
    ("accept", "decline"),
    ("accept", "reject"),
    ("grant", "revoke"),
    ("add", "remove"),
    ("create", "delete"),
    ("create", "destroy"),
    ("increment", "decrement"),
    ("increase", "decrease"),
    ("show", "hide"),
    ("open", "close"),
    ("start", "stop"),
];

/// Actions that make, give or join something: what a request for one of them needs is never a
/// definition that only takes such a thing away. Words as often nouns as verbs are left out, and
/// so are those a noun's renderings bring in (投稿 gives "post" the form "submit", 初期化
/// "setup"): "blog post settings" or "issue labels" ask for no action, and their `destroy` is
/// part of the feature.
const MAKING: &[&str] = &[
    "create",
    "add",
    "insert",
    "make",
    "upload",
    "attach",
    "save",
    "register",
    "subscribe",
    "connect",
    "share",
    "generate",
    "enable",
    "grant",
    "follow",
    "lock",
    "block",
    "publish",
    "invite",
    "assign",
    "install",
    "schedule",
    "rsvp",
    "vote",
    "upvote",
    "pin",
    "mute",
    "highlight",
    "transfer",
];

/// Words that take away what one of the [`MAKING`] actions made, whichever it was: `attachment_del`
/// for "upload ticket attachments", `revokeApiKey` for 「APIキーの作成」, `events.cancel` for
/// "schedule an event". An "un" before a making action is one too (`unsubscribe`).
const UNDOING: &[&str] = &[
    "delete",
    "del",
    "remove",
    "destroy",
    "erase",
    "drop",
    "purge",
    "trash",
    "revoke",
    "revert",
    "cancel",
    "discard",
    "withdraw",
    "unlink",
    "unset",
    "unassign",
    "disable",
    "disconnect",
    "detach",
];

/// Words that undo the action after them as "un" does: `cancelInvite` uninvites,
/// `cancelRsvpAction` takes an RSVP back, `cancelAccountDeletionAction` keeps the account.
const CANCELLING: &[&str] = &["cancel", "undo", "revert", "abort"];

/// Whether a stemmed English word cancels the action after it ([`CANCELLING`]).
pub fn cancels(stem: &str) -> bool {
    static STEMMED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    among(&STEMMED, CANCELLING, stem)
}

/// Whether a stemmed English word names one of the [`MAKING`] actions.
pub fn makes(stem: &str) -> bool {
    static STEMMED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    among(&STEMMED, MAKING, stem)
}

/// Whether a stemmed English word takes away what a [`MAKING`] action made ([`UNDOING`], or
/// "un" before a making action).
pub fn undoes(stem: &str) -> bool {
    static STEMMED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    among(&STEMMED, UNDOING, stem) || stem.strip_prefix("un").is_some_and(makes)
}

/// Whether `stem` is one of `words` stemmed, which `cell` keeps once stemmed: the judge asks for
/// every word of every name it scores.
fn among(cell: &std::sync::OnceLock<Vec<String>>, words: &[&str], stem: &str) -> bool {
    cell.get_or_init(|| words.iter().map(|w| crate::lexical::stem(w)).collect())
        .iter()
        .any(|w| w == stem)
}

/// The reverses of an English action word, both sides compared stemmed
/// ([`crate::lexical::stem`]): "logins" → logout, "disabled" → enable.
pub fn opposites(stem: &str) -> impl Iterator<Item = String> + '_ {
    OPPOSITES.iter().filter_map(move |&(a, b)| {
        let (a, b) = (crate::lexical::stem(a), crate::lexical::stem(b));
        if a == stem {
            Some(b)
        } else if b == stem {
            Some(a)
        } else {
            None
        }
    })
}

/// Words that name no feature of their own (ログイン処理 is the login, as ログイン機能 is): a
/// rendering leaves them out, as it leaves out every word the glossary does not know, because
/// "process" or "handle" would match any code a little. The ones the glossary does not list
/// either are here so that [`unread`] does not count them as words the server missed.
const LIGHT_WORDS: &[&str] = &[
    "処理",
    "機能",
    "実装",
    "対応",
    "部分",
    "周り",
    "仕組み",
    "動作",
    "箇所",
    "全般",
    // whose, by way of, with each other: they say whose or how, never what (自分のアカウント is
    // the account, LDAP経由の変更 the change)
    "自分",
    "経由",
    "同士",
];

/// Whether a Japanese word names no feature of its own (see [`LIGHT_WORDS`]).
pub fn is_light(japanese: &str) -> bool {
    LIGHT_WORDS.contains(&japanese)
}

/// The script of a character of a Japanese word: katakana (ー included) or kanji.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    Katakana,
    Kanji,
}

fn script(c: char) -> Option<Script> {
    if crate::lexical::is_katakana(c) {
        Some(Script::Katakana)
    } else if crate::lexical::is_kanji(c) {
        Some(Script::Kanji)
    } else {
        None
    }
}

/// A word of a request the glossary does not read ([`unread`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unread<'q> {
    /// Byte offset in the request.
    pub at: usize,
    pub word: &'q str,
    pub script: Script,
}

/// Which bytes of `query` a glossary word covers (by byte offset).
pub fn read(query: &str) -> Vec<bool> {
    let mut read = vec![false; query.len()];
    for m in matches(query) {
        read[m.start..m.end].fill(true);
    }
    read
}

/// The words of `query` the glossary does not read: each run of katakana or of kanji outside
/// every glossary match, light words left out. Hiragana (particles, endings) and ASCII are never
/// runs. A request word in this list is one the server cannot match by its letters;
/// [`crate::search::loanword`] can still find a katakana one in the project's names.
pub fn unread(query: &str) -> Vec<Unread<'_>> {
    let read = read(query);
    let mut out: Vec<Unread> = Vec::new();
    let mut run: Option<(usize, Script)> = None;
    for (i, c) in query.char_indices().chain([(query.len(), ' ')]) {
        let here = if i < query.len() && !read[i] {
            script(c)
        } else {
            None
        };
        match (run, here) {
            (Some((_, a)), Some(b)) if a == b => {}
            _ => {
                if let Some((at, script)) = run.take() {
                    let word = &query[at..i];
                    if !is_light(word) {
                        out.push(Unread { at, word, script });
                    }
                }
                run = here.map(|s| (i, s));
            }
        }
    }
    out
}

/// `query` rendered in English words, for a model that matches English to English better than
/// Japanese to English: each Japanese word the glossary knows becomes its first rendering, in the
/// order the words occur, and ASCII words (`JWT`, `API`) are kept. `loanwords` adds words found
/// elsewhere for words the glossary does not read ([`unread`]), each at its byte offset in
/// `query` (ペット at 0 as "pet": 「ペットの登録」 is "pet register", not "register"). `None` when
/// the query has no Japanese or no word was read, so a rendering never stands for words it
/// dropped wholesale.
pub fn render(query: &str, loanwords: &[(usize, String)]) -> Option<String> {
    render_outside(query, loanwords, &[])
}

/// [`render`], the glossary's words inside the byte spans `covered` left to `loanwords` (a
/// word the project's translations read, [`cover`]).
pub fn render_outside(
    query: &str,
    loanwords: &[(usize, String)],
    covered: &[(usize, usize)],
) -> Option<String> {
    if !query.chars().any(crate::lexical::is_cjk) {
        return None;
    }
    let mut words: Vec<(usize, &str)> = loanwords.iter().map(|(at, w)| (*at, w.as_str())).collect();
    let mut spans: Vec<(usize, usize)> = covered.to_vec();
    for m in matches(query) {
        if inside(&spans, m.start, m.end) {
            continue;
        }
        spans.push((m.start, m.end));
        if LIGHT_WORDS.contains(&m.japanese) {
            continue;
        }
        if let Some(first) = m.english.first() {
            words.push((m.start, first));
        }
    }
    if words.is_empty() {
        return None;
    }
    let mut start = None;
    for (i, c) in query.char_indices().chain([(query.len(), ' ')]) {
        match (c.is_ascii_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push((s, &query[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    words.sort_by_key(|(at, _)| *at);
    let mut out: Vec<&str> = Vec::new();
    for (_, w) in words {
        if out.last() != Some(&w) {
            out.push(w);
        }
    }
    Some(out.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unread_words_are_the_runs_outside_every_glossary_match() {
        fn words(q: &str) -> Vec<&str> {
            unread(q).into_iter().map(|u| u.word).collect()
        }
        // ペット and 獣医 are not in the glossary; 登録, 一覧 and ログイン are; 機能 is light.
        assert_eq!(words("ペットの登録"), vec!["ペット"]);
        assert_eq!(words("獣医一覧"), vec!["獣医"]);
        assert!(words("ログイン機能").is_empty());
        // Whose and how are not words the server missed.
        assert!(words("自分のアカウントを削除").is_empty());
        assert!(words("LDAP経由のパスワード変更").is_empty());
        // A katakana word and the kanji after it are two words; 重複 is in the glossary.
        assert_eq!(
            unread("ペット名の重複"),
            vec![
                Unread {
                    at: 0,
                    word: "ペット",
                    script: Script::Katakana
                },
                Unread {
                    at: 9,
                    word: "名",
                    script: Script::Kanji
                },
            ]
        );
        assert!(unread("reset password").is_empty());
        // ログ is in the glossary, but not inside ブログ.
        assert_eq!(words("ブログ記事"), vec!["ブログ"]);
        assert!(
            expand_groups("ブログ記事")
                .iter()
                .all(|(j, _)| *j != "ログ")
        );
        assert!(
            expand_groups("ログの出力")
                .iter()
                .any(|(j, _)| *j == "ログ")
        );
    }

    #[test]
    fn japanese_terms_render_in_english_word_order() {
        assert_eq!(render("ログイン処理", &[]).as_deref(), Some("login"));
        assert_eq!(render("データ処理", &[]), None);
        assert_eq!(
            render("パスワードの変更", &[]).as_deref(),
            Some("password change")
        );
        assert_eq!(
            render("JWTトークン認証", &[]).as_deref(),
            Some("JWT token auth")
        );
        assert_eq!(render("login", &[]), None);
        assert_eq!(render("ほげほげ", &[]), None);
    }

    #[test]
    fn japanese_requests_gain_english_terms() {
        let cases: &[(&str, &[&str])] = &[
            ("ログイン機能", &["login", "auth"]),
            (
                "注文データはどこに保存されている？",
                &["order", "save", "store"],
            ),
            ("商品の在庫を更新する処理", &["product", "stock", "update"]),
        ];
        for (query, expected) in cases {
            let terms = expand(query);
            for term in *expected {
                assert!(terms.contains(term), "{query}: {terms:?} lacks {term}");
            }
        }
    }

    #[test]
    fn a_word_inside_a_longer_word_does_not_count() {
        let terms = expand("ログイン画面");
        assert!(terms.contains(&"login"));
        assert!(!terms.contains(&"logger"), "{terms:?}");
    }

    #[test]
    fn a_compound_is_read_as_itself_not_through_a_word_inside_it() {
        let curve = expand("体重の成長曲線");
        assert!(
            curve.contains(&"growth") && curve.contains(&"curve"),
            "{curve:?}"
        );
        assert!(!curve.contains(&"song"), "{curve:?}");
        let unlock = expand("パスワード保護ブログのロック解除");
        assert!(
            unlock.contains(&"unlock") && unlock.contains(&"protect"),
            "{unlock:?}"
        );
        assert!(!unlock.contains(&"un"), "{unlock:?}");
        let block = expand("ユーザーのブロック");
        assert!(
            block.contains(&"block") && !block.contains(&"lock"),
            "{block:?}"
        );
        let undo = expand("インポートを取り消す");
        assert!(
            undo.contains(&"cancel") && !undo.contains(&"back"),
            "{undo:?}"
        );
    }

    #[test]
    fn english_requests_are_left_alone() {
        assert!(expand("where are orders stored").is_empty());
    }

    #[test]
    fn entries_are_well_formed() {
        for (japanese, english) in ENTRIES {
            assert!(japanese.chars().all(crate::lexical::is_cjk), "{japanese}");
            assert!(!english.is_empty());
            for term in *english {
                assert!(
                    term.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
                    "{japanese}: {term}"
                );
            }
        }
    }
}
