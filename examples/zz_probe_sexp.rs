// Temporary probe (chunk engineer): prints tree-sitter trees. Will be deleted.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let lang = code_intel::lang::by_id(&args[1]).unwrap();
    let text = std::fs::read_to_string(&args[2]).unwrap();
    let tree = if args.get(4).is_some() { code_intel::syntax::parse_host(lang, &text).unwrap() } else { code_intel::syntax::parse(lang, &text).tree.unwrap() };
    print(tree.root_node(), &text, 0, args.get(3).map(|s| s.parse().unwrap()).unwrap_or(99));
}
fn print(node: tree_sitter::Node, text: &str, depth: usize, max: usize) {
    if depth > max { return; }
    let t = &text[node.byte_range()];
    let short: String = t.chars().take(50).collect::<String>().replace('\n', "⏎");
    let field = node.parent().and_then(|p| { let mut c = p.walk(); let mut i = 0; for ch in p.children(&mut c) { if ch.id() == node.id() { return p.field_name_for_child(i).map(|s| s.to_string()); } i += 1; } None });
    println!("{}{}{} [{}] {:?}", "  ".repeat(depth), field.map(|f| format!("{f}: ")).unwrap_or_default(), node.kind(), node.start_position().row + 1, short);
    let mut c = node.walk();
    for ch in node.children(&mut c) { print(ch, text, depth + 1, max); }
}
