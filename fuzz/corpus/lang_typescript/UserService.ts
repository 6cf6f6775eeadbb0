import { User } from '../types/User';

/**
 * User service that handles user authentication and management operations. Records live in memory only.
 */

const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const MIN_PASSWORD_LENGTH = 8;

function validateUser(user: User): boolean {
  if (!user.id || user.name.trim().length === 0) {
    return false;
  }
  return EMAIL_PATTERN.test(user.email);
}

export class UserService {
  private users: User[] = [];

  async getUser(id: string): Promise<User | null> {
    const user = this.users.find((candidate) => candidate.id === id);
    if (!user) return null;
    // Return a copy so that callers cannot mutate the stored record behind the service's back.
    return { ...user };
  }

  /** Finds a user by e-mail address. The comparison ignores letter case and any leading or trailing spaces. */
  async findByEmail(email: string): Promise<User | null> {
    const normalizedEmail = email.trim().toLowerCase();
    const user = this.users.find((candidate) => candidate.email.toLowerCase() === normalizedEmail);
    return user ? { ...user } : null;
  }

  /** Lists every user, or only the users that have the given role, as copies of the stored records. */
  async listUsers(role?: User['role']): Promise<User[]> {
    const matching = role ? this.users.filter((user) => user.role === role) : this.users;
    return matching.map((user) => ({ ...user }));
  }

  /**
   * Adds a user. The plain-text password is hashed before anything is stored. Throws when the record
   * is invalid (missing id or name, malformed e-mail) or when the e-mail address is already registered.
   */
  async createUser(user: User, password: string): Promise<User> {
    const normalized: User = { ...user, name: user.name.trim(), email: user.email.trim().toLowerCase() };
    if (!validateUser(normalized)) {
      throw new Error(`Cannot create user "${user.id}": id, name and a valid e-mail address are required`);
    }
    if (await this.findByEmail(normalized.email)) {
      throw new Error(`Cannot create user "${user.id}": the e-mail address ${normalized.email} is already taken`);
    }
    const stored: User = { ...normalized, passwordHash: await UserService.hashPassword(password) };
    this.users.push(stored);
    return { ...stored };
  }

  /**
   * Applies a partial update and returns the new record, or null when no user has the given id. The id
   * and the password hash cannot be changed here: use changePassword(), which checks the current password.
   */
  async updateUser(id: string, changes: Partial<Omit<User, 'id' | 'passwordHash'>>): Promise<User | null> {
    const index = this.users.findIndex((user) => user.id === id);
    if (index === -1) return null;
    const updated: User = { ...this.users[index], ...changes };
    if (!validateUser(updated)) {
      throw new Error(`Cannot update user "${id}": the result would have no name or an invalid e-mail`);
    }
    this.users[index] = updated;
    return { ...updated };
  }

  /** Removes a user. Returns true when a record was actually deleted and false when no user with that id exists. */
  async deleteUser(id: string): Promise<boolean> {
    const before = this.users.length;
    this.users = this.users.filter((user) => user.id !== id);
    return this.users.length < before;
  }

  /**
   * Checks a plain-text password against the hash stored for the user. Users that are not held by this
   * service, or that were created without a password, never match, whatever password is given.
   */
  async verifyPassword(user: User, password: string): Promise<boolean> {
    const stored = this.users.find((candidate) => candidate.id === user.id);
    if (!stored?.passwordHash) return false;
    return stored.passwordHash === (await UserService.hashPassword(password));
  }

  /**
   * Authenticates by e-mail address and password: returns a copy of the user on success and null
   * otherwise, without revealing whether it was the e-mail address or the password that was wrong.
   */
  async authenticate(email: string, password: string): Promise<User | null> {
    const user = await this.findByEmail(email);
    return user && (await this.verifyPassword(user, password)) ? user : null;
  }

  /**
   * Replaces a user's password after checking the current one. Returns false, and changes nothing,
   * when the user does not exist or the current password is wrong; throws when the new one is too short.
   */
  async changePassword(id: string, currentPassword: string, newPassword: string): Promise<boolean> {
    const index = this.users.findIndex((user) => user.id === id);
    if (index === -1 || !(await this.verifyPassword(this.users[index], currentPassword))) {
      return false;
    }
    if (newPassword.length < MIN_PASSWORD_LENGTH) {
      throw new Error(`The new password must be at least ${MIN_PASSWORD_LENGTH} characters long`);
    }
    this.users[index] = { ...this.users[index], passwordHash: await UserService.hashPassword(newPassword) };
    return true;
  }

  /** SHA-256 hex digest of the password. Good enough for this small in-memory demo, not for production use. */
  private static async hashPassword(password: string): Promise<string> {
    const passwordBytes = new TextEncoder().encode(password);
    const digest = await crypto.subtle.digest('SHA-256', passwordBytes);
    return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
  }
}
