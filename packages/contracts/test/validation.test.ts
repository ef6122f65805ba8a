import { describe, expect, it } from 'vitest';
import {
  EMAIL_MAX,
  EmailField,
  RegisterRequest,
  USERNAME_MAX,
  UsernameField,
  validateChangeEmailForm,
  validateChangePasswordForm,
  validateChangeUsernameForm,
  validateLoginForm,
  validatePaymentMethodForm,
  validateRegisterForm,
} from '../src/index.js';

const good = { username: 'ana_1', email: 'ana@example.com', password: 'secret1', confirmPassword: 'secret1' };

describe('registration form: first failing rule only, in SPEC order', () => {
  it.each([
    [{ ...good, username: '' }, 'register.allRequired'],
    [{ ...good, confirmPassword: '   ' }, 'register.allRequired'],
    // Everything else wrong too: the mismatch is reported first.
    [{ username: 'a', email: 'bad', password: '123', confirmPassword: '124' }, 'register.passwordsDontMatch'],
    [{ username: 'a', email: 'bad', password: '12345', confirmPassword: '12345' }, 'register.passwordHelp'],
    [{ ...good, username: 'a', email: 'ana @example.com' }, 'register.validEmailError'],
    [{ ...good, username: 'a', email: 'ana@example' }, 'register.validEmailError'],
    [{ ...good, username: 'ab' }, 'register.usernameMinLength'],
    [{ ...good, username: 'ana maria' }, 'register.usernameRequirements'],
    [{ ...good, password: 'x'.repeat(129), confirmPassword: 'x'.repeat(129) }, 'register.passwordTooLong'],
    [good, null],
    [{ ...good, password: '123456', confirmPassword: '123456', username: 'abc' }, null],
  ])('%j -> %s', (form, expected) => {
    expect(validateRegisterForm(form)).toBe(expected);
  });

  it('the server schema agrees with the form on a valid registration and names the bad field', () => {
    expect(RegisterRequest.safeParse(good).success).toBe(true);
    const bad = RegisterRequest.safeParse({ ...good, username: 'x'.repeat(10_000) });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['username']);
  });
});

describe('other forms', () => {
  it('login needs both fields', () => {
    expect(validateLoginForm({ emailOrUsername: 'ana', password: '' })).toBe('login.allRequired');
    expect(validateLoginForm({ emailOrUsername: 'ana', password: 'x' })).toBeNull();
  });
  it('change email uses the simple pattern', () => {
    expect(validateChangeEmailForm({ email: 'a@b.c' })).toBeNull();
    expect(validateChangeEmailForm({ email: 'a@b' })).toBe('changeEmail.validEmailError');
  });
  it('change password: match first, then length', () => {
    expect(
      validateChangePasswordForm({ currentPassword: 'old', newPassword: '123', confirmPassword: '124' }),
    ).toBe('changePassword.passwordsDontMatch');
    expect(
      validateChangePasswordForm({ currentPassword: 'old', newPassword: '123', confirmPassword: '123' }),
    ).toBe('changePassword.passwordMinLength');
    expect(
      validateChangePasswordForm({
        currentPassword: 'old',
        newPassword: '123456',
        confirmPassword: '123456',
      }),
    ).toBeNull();
  });
  it('change username: letters, digits and underscore, at least 3', () => {
    expect(validateChangeUsernameForm({ username: 'ab' })).toBe('changeUsername.usernameRequirements');
    expect(validateChangeUsernameForm({ username: 'a-b-c' })).toBe('changeUsername.usernameRequirements');
    expect(validateChangeUsernameForm({ username: 'a_b_C9' })).toBeNull();
  });
  it('payment method needs a valid PayPal email', () => {
    expect(validatePaymentMethodForm({ paypalEmail: '' })).toBe('paymentMethod.missingEmailError');
    expect(validatePaymentMethodForm({ paypalEmail: 'pay@pal.com' })).toBeNull();
  });
});

describe('field rules cost no more than the length of what they check', () => {
  // A pattern must never see a value its length check has already refused: an over-long value would
  // otherwise reach the regex, and a backtracking one holds the event loop for seconds.
  const evilEmail = 'a@' + '.'.repeat(60_000) + '@';

  it('an over-long email is refused by its length alone', () => {
    const result = EmailField.safeParse(evilEmail);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.message)).toEqual([
      `email must be at most ${EMAIL_MAX} characters`,
    ]);
  });

  it('an over-long username is refused by its length alone', () => {
    const result = UsernameField.safeParse('a '.repeat(30_000));
    expect(result.error!.issues.map((i) => i.message)).toEqual([
      `username must be at most ${USERNAME_MAX} characters`,
    ]);
  });

  it.each([
    ['ana@example.com', true],
    ['ana.maria@mail.example.co.uk', true],
    ['a@' + '.'.repeat(240) + '@', false],
    ['a@b.' + 'c.'.repeat(100), false],
    ['ana@example..com', false],
    ['ana@example', false],
    ['ana @example.com', false],
    ["o'brien+tag@example.org", true],
    ['zoë.ñandú@exämple.org', true],
    ['a@b.c', true],
    ['x1<victim@example.org>', false],
    ['x2 <victim@example.org>', false],
    ['"x3"@example.org', false],
    ['victim@example.org (x4)', false],
    ['victim(x5)@example.org', false],
    ['victim@example.org,x@example.org', false],
    ['vic\\tim@example.org', false],
    ['.ana@example.org', false],
    ['ana.@example.org', false],
    ['ana@-example.org', false],
    ['ana@example-.org', false],
    ['ana@[127.0.0.1]', false],
    ['victim@example.org\uff1e', false],
    ['a\u0000@b.co', false],
    ['x'.repeat(65) + '@example.org', false],
  ])('%s is valid: %s', (email, valid) => {
    expect(EmailField.safeParse(email).success).toBe(valid);
  });
});

describe('one spelling of an address', () => {
  it('keeps the local part as typed and the domain in lower case', () => {
    expect(EmailField.parse('Ana.Maria@Mail.Example.ORG')).toBe('Ana.Maria@mail.example.org');
  });
  it('refuses a display name with a message that says so', () => {
    const result = EmailField.safeParse('x1<victim@example.org>');
    expect(result.error!.issues.map((i) => i.message)).toEqual([
      'email must be one plain address like name@example.com: no display name, comment, angle brackets, quotes or spaces',
    ]);
  });
});
