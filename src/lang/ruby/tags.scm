; Ruby definitions. A `def` nested in a class is a method (the analysis reclassifies it);
; `def self.x` is always one. Constants are assignments to a capitalised name.
; `class Admin::UsersController` is `UsersController` in `Admin`: the written qualifier is its scope.
(class name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)]) @definition.class
(module name: [(constant) @name (scope_resolution scope: (_) @scope name: (constant) @name)]) @definition.module
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
(program (assignment left: (constant) @name) @definition.constant)
(class body: (body_statement (assignment left: (constant) @name) @definition.constant))
(module body: (body_statement (assignment left: (constant) @name) @definition.constant))
