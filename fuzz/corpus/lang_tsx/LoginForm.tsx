import { useState, type FormEvent } from 'react';
import type { Credentials } from '@/types';
import { useAuth } from '@/hooks/useAuth';
import { validateCredentials, type FieldErrors } from '@/utils/validation';

export interface LoginFormProps {
  onSuccess?: () => void;
}

export function LoginForm({ onSuccess }: LoginFormProps) {
  const { login, state, error } = useAuth();
  const [credentials, setCredentials] = useState<Credentials>({ email: '', password: '', remember: true });
  const [fieldErrors, setFieldErrors] = useState<FieldErrors<Credentials>>({});

  const update = <K extends keyof Credentials>(key: K, value: Credentials[K]) =>
    setCredentials((current) => ({ ...current, [key]: value }));

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const result = validateCredentials(credentials);
    if (!result.valid) {
      setFieldErrors(result.errors);
      return;
    }
    setFieldErrors({});
    if (await login(credentials)) {
      onSuccess?.();
    }
  }

  return (
    <form className="login-form" onSubmit={handleSubmit} noValidate>
      <h1>Sign in</h1>
      {error && <p role="alert">{error}</p>}

      <label>
        E-mail
        <input
          type="email"
          autoComplete="username"
          value={credentials.email}
          onChange={(event) => update('email', event.target.value)}
        />
        {fieldErrors.email && <small>{fieldErrors.email}</small>}
      </label>

      <label>
        Password
        <input
          type="password"
          autoComplete="current-password"
          value={credentials.password}
          onChange={(event) => update('password', event.target.value)}
        />
        {fieldErrors.password && <small>{fieldErrors.password}</small>}
      </label>

      <label className="checkbox">
        <input
          type="checkbox"
          checked={credentials.remember ?? false}
          onChange={(event) => update('remember', event.target.checked)}
        />
        Keep me signed in
      </label>

      <button type="submit" disabled={state.status === 'loading'}>
        {state.status === 'loading' ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
