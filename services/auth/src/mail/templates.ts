// Account mail in the six languages: each kind has a subject, paragraphs and, where the reader must act,
// one link. Rendered as plain text and as HTML (every interpolated value escaped) from the same words.
import type { Language } from '@omc/contracts';

export type MailKind =
  | 'passwordReset'
  | 'passwordChanged'
  | 'verifyEmail'
  | 'confirmEmailChange'
  | 'emailChangeNotice'
  | 'emailChangeUndone'
  | 'confirmPayoutEmail'
  | 'payoutEmailNotice'
  | 'approvalStep';

interface Words {
  subject: string;
  paragraphs: (p: MailParams) => string[];
  action?: string;
  after?: (p: MailParams) => string[];
}

export interface MailParams {
  link?: string;
  minutes?: number;
  hours?: number;
  days?: number;
  /**
   * An address someone typed (the new one, in the notice to the old one): written defanged, never as
   * a link (see defangAddress).
   */
  address?: string;
  /** A two-admin request (approvalStep): which step, which act, and who. */
  step?: 'requested' | 'approved' | 'failed' | 'refused' | 'expired';
  act?: 'role' | 'housePayout';
  role?: string;
  target?: string;
  requester?: string;
  decider?: string;
  reason?: string;
}

interface Common {
  greeting: string;
  signature: string;
  notYou: string;
}

const COMMON: Record<Language, Common> = {
  es: {
    greeting: 'Hola:',
    signature: 'El equipo de One Million Clicks',
    notYou: 'Si no lo pediste tú, ignora este correo: tu cuenta no cambia.',
  },
  en: {
    greeting: 'Hello,',
    signature: 'The One Million Clicks team',
    notYou: 'If you did not ask for this, ignore this mail: nothing changes on your account.',
  },
  fr: {
    greeting: 'Bonjour,',
    signature: "L'équipe One Million Clicks",
    notYou: "Si vous n'en êtes pas à l'origine, ignorez ce message : votre compte ne change pas.",
  },
  de: {
    greeting: 'Hallo,',
    signature: 'Das Team von One Million Clicks',
    notYou:
      'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Konto bleibt unverändert.',
  },
  it: {
    greeting: 'Ciao,',
    signature: 'Il team di One Million Clicks',
    notYou: "Se non l'hai chiesto tu, ignora questa email: il tuo account non cambia.",
  },
  pt: {
    greeting: 'Olá,',
    signature: 'A equipa One Million Clicks',
    notYou: 'Se não foste tu a pedir, ignora este email: a tua conta não muda.',
  },
};

const SECURITY: Record<Language, string> = {
  es: 'Si no fuiste tú, restablece tu contraseña ahora desde «¿Olvidaste tu contraseña?» y escríbenos.',
  en: 'If this was not you, reset your password now from "Forgot password?" and contact us.',
  fr: "Si ce n'était pas vous, réinitialisez votre mot de passe depuis « Mot de passe oublié ? » et contactez-nous.",
  de: 'Wenn Sie das nicht waren, setzen Sie Ihr Passwort jetzt über „Passwort vergessen?“ zurück und kontaktieren Sie uns.',
  it: 'Se non sei stato tu, reimposta subito la password da «Password dimenticata?» e contattaci.',
  pt: 'Se não foste tu, redefine já a palavra-passe em «Esqueceste-te da palavra-passe?» e contacta-nos.',
};

/**
 * An address a stranger may have chosen, written so that no mail client turns it into a link: every
 * "." becomes "[.]" and "://" becomes "[://]" (the way security notices write hostile addresses), so
 * `https://clicks.example.com@evil.example` cannot pass for a link to us.
 */
export function defangAddress(address: string): string {
  return address.replace(/:\/\//g, '[://]').replace(/\./g, '[.]');
}

type StepWords = Record<NonNullable<MailParams['step']>, (p: MailParams) => string>;

/** One language's words for a two-admin request: the act, then what happened to it. */
function approvalWords(
  subject: string,
  act: (p: MailParams) => string,
  steps: StepWords,
  reason: (r: string) => string,
): Words {
  return {
    subject,
    paragraphs: (p) => [act(p), steps[p.step ?? 'requested'](p), ...(p.reason ? [reason(p.reason)] : [])],
  };
}

const APPROVAL_STEP: Record<Language, Words> = {
  es: approvalWords(
    'Acto de administración que necesita dos administradores',
    (p) =>
      p.act === 'housePayout'
        ? `Solicitud: pagar todo el bote de la casa a la cuenta de PayPal de ${p.requester}.`
        : `Solicitud: dar el rol ${p.role} a ${p.target}.`,
    {
      requested: (p) =>
        `${p.requester} la ha pedido. Otro administrador debe aprobarla o rechazarla en la gestión de roles; caduca en ${p.hours} horas.`,
      approved: (p) => `${p.decider} la ha aprobado y se ha llevado a cabo.`,
      failed: (p) => `${p.decider} la ha aprobado, pero no se ha podido llevar a cabo.`,
      refused: (p) => `${p.decider} la ha rechazado; no se ha hecho nada.`,
      expired: () => 'Ha caducado sin que nadie la aprobara; no se ha hecho nada.',
    },
    (r) => `Motivo: ${r}`,
  ),
  en: approvalWords(
    'An admin act that needs two admins',
    (p) =>
      p.act === 'housePayout'
        ? `Request: pay the whole house pot to the PayPal account of ${p.requester}.`
        : `Request: give the ${p.role} role to ${p.target}.`,
    {
      requested: (p) =>
        `${p.requester} asked for it. Another admin must approve or refuse it in the role manager; it expires in ${p.hours} hours.`,
      approved: (p) => `${p.decider} approved it, and it was carried out.`,
      failed: (p) => `${p.decider} approved it, but it could not be carried out.`,
      refused: (p) => `${p.decider} refused it; nothing was done.`,
      expired: () => 'It expired without an approval; nothing was done.',
    },
    (r) => `Reason: ${r}`,
  ),
  fr: approvalWords(
    'Un acte d’administration qui demande deux administrateurs',
    (p) =>
      p.act === 'housePayout'
        ? `Demande : verser toute la cagnotte de la maison au compte PayPal de ${p.requester}.`
        : `Demande : donner le rôle ${p.role} à ${p.target}.`,
    {
      requested: (p) =>
        `${p.requester} l’a demandé. Un autre administrateur doit l’approuver ou la refuser dans la gestion des rôles ; elle expire dans ${p.hours} heures.`,
      approved: (p) => `${p.decider} l’a approuvée et elle a été exécutée.`,
      failed: (p) => `${p.decider} l’a approuvée, mais elle n’a pas pu être exécutée.`,
      refused: (p) => `${p.decider} l’a refusée ; rien n’a été fait.`,
      expired: () => 'Elle a expiré sans approbation ; rien n’a été fait.',
    },
    (r) => `Motif : ${r}`,
  ),
  de: approvalWords(
    'Eine Admin-Aktion, die zwei Admins braucht',
    (p) =>
      p.act === 'housePayout'
        ? `Antrag: den ganzen Hauspot an das PayPal-Konto von ${p.requester} auszahlen.`
        : `Antrag: ${p.target} die Rolle ${p.role} geben.`,
    {
      requested: (p) =>
        `${p.requester} hat ihn gestellt. Ein anderer Admin muss ihn in der Rollenverwaltung genehmigen oder ablehnen; er läuft in ${p.hours} Stunden ab.`,
      approved: (p) => `${p.decider} hat ihn genehmigt, und er wurde ausgeführt.`,
      failed: (p) => `${p.decider} hat ihn genehmigt, aber er konnte nicht ausgeführt werden.`,
      refused: (p) => `${p.decider} hat ihn abgelehnt; nichts wurde getan.`,
      expired: () => 'Er ist ohne Genehmigung abgelaufen; nichts wurde getan.',
    },
    (r) => `Grund: ${r}`,
  ),
  it: approvalWords(
    'Un atto di amministrazione che richiede due amministratori',
    (p) =>
      p.act === 'housePayout'
        ? `Richiesta: pagare l’intero montepremi della casa sul conto PayPal di ${p.requester}.`
        : `Richiesta: dare il ruolo ${p.role} a ${p.target}.`,
    {
      requested: (p) =>
        `${p.requester} l’ha chiesta. Un altro amministratore deve approvarla o rifiutarla nella gestione dei ruoli; scade tra ${p.hours} ore.`,
      approved: (p) => `${p.decider} l’ha approvata ed è stata eseguita.`,
      failed: (p) => `${p.decider} l’ha approvata, ma non è stato possibile eseguirla.`,
      refused: (p) => `${p.decider} l’ha rifiutata; non è stato fatto nulla.`,
      expired: () => 'È scaduta senza approvazione; non è stato fatto nulla.',
    },
    (r) => `Motivo: ${r}`,
  ),
  pt: approvalWords(
    'Um ato de administração que precisa de dois administradores',
    (p) =>
      p.act === 'housePayout'
        ? `Pedido: pagar todo o pote da casa à conta PayPal de ${p.requester}.`
        : `Pedido: dar o papel ${p.role} a ${p.target}.`,
    {
      requested: (p) =>
        `${p.requester} fez o pedido. Outro administrador tem de o aprovar ou recusar na gestão de papéis; expira em ${p.hours} horas.`,
      approved: (p) => `${p.decider} aprovou-o e foi executado.`,
      failed: (p) => `${p.decider} aprovou-o, mas não foi possível executá-lo.`,
      refused: (p) => `${p.decider} recusou-o; nada foi feito.`,
      expired: () => 'Expirou sem aprovação; nada foi feito.',
    },
    (r) => `Motivo: ${r}`,
  ),
};

const KINDS: Record<MailKind, Record<Language, Words>> = {
  approvalStep: APPROVAL_STEP,
  confirmPayoutEmail: {
    es: {
      subject: 'Confirma tu nuevo correo de PayPal para cobrar',
      paragraphs: (p) => [
        `Se pidió pagar los premios de tu cuenta de One Million Clicks al correo de PayPal ${p.address}. No se pagará nada a esa dirección hasta que lo confirmes con este enlace.`,
        `El enlace caduca en ${p.hours} horas y sirve una sola vez.`,
      ],
      action: 'Confirmar el correo de PayPal',
    },
    en: {
      subject: 'Confirm your new PayPal email for payouts',
      paragraphs: (p) => [
        `Someone asked to pay the winnings of your One Million Clicks account to the PayPal email ${p.address}. Nothing is paid to that address until you confirm with this link.`,
        `The link expires in ${p.hours} hours and works once.`,
      ],
      action: 'Confirm the PayPal email',
    },
    fr: {
      subject: 'Confirmez votre nouvelle adresse PayPal pour les paiements',
      paragraphs: (p) => [
        `Quelqu’un a demandé à verser les gains de votre compte One Million Clicks à l’adresse PayPal ${p.address}. Rien n’est versé à cette adresse tant que vous ne confirmez pas avec ce lien.`,
        `Le lien expire dans ${p.hours} heures et ne sert qu’une fois.`,
      ],
      action: 'Confirmer l’adresse PayPal',
    },
    de: {
      subject: 'Bestätigen Sie Ihre neue PayPal-Adresse für Auszahlungen',
      paragraphs: (p) => [
        `Jemand möchte die Gewinne Ihres One-Million-Clicks-Kontos an die PayPal-Adresse ${p.address} auszahlen lassen. An diese Adresse wird nichts gezahlt, bis Sie über diesen Link bestätigen.`,
        `Der Link läuft in ${p.hours} Stunden ab und gilt nur einmal.`,
      ],
      action: 'PayPal-Adresse bestätigen',
    },
    it: {
      subject: 'Conferma la tua nuova email PayPal per i pagamenti',
      paragraphs: (p) => [
        `Qualcuno ha chiesto di pagare le vincite del tuo account One Million Clicks all’email PayPal ${p.address}. Nulla viene pagato a quell’indirizzo finché non confermi con questo link.`,
        `Il link scade tra ${p.hours} ore e vale una sola volta.`,
      ],
      action: 'Conferma l’email PayPal',
    },
    pt: {
      subject: 'Confirma o teu novo email PayPal para pagamentos',
      paragraphs: (p) => [
        `Alguém pediu para pagar os prémios da tua conta One Million Clicks ao email PayPal ${p.address}. Nada é pago a esse endereço até confirmares com esta ligação.`,
        `A ligação expira em ${p.hours} horas e só funciona uma vez.`,
      ],
      action: 'Confirmar o email PayPal',
    },
  },
  payoutEmailNotice: {
    es: {
      subject: 'Se pidió cambiar el correo de PayPal de una cuenta',
      paragraphs: (p) => [
        `Se pidió pagar los premios de una cuenta de One Million Clicks al correo de PayPal ${p.address} en lugar del actual. El cambio solo se aplica si se confirma desde el enlace enviado al correo de la cuenta.`,
      ],
    },
    en: {
      subject: 'A change of an account’s PayPal email was requested',
      paragraphs: (p) => [
        `Someone asked to pay the winnings of a One Million Clicks account to the PayPal email ${p.address} instead of the current one. The change applies only once confirmed from the link mailed to the account’s email.`,
      ],
    },
    fr: {
      subject: 'Un changement de l’adresse PayPal d’un compte a été demandé',
      paragraphs: (p) => [
        `Quelqu’un a demandé à verser les gains d’un compte One Million Clicks à l’adresse PayPal ${p.address} au lieu de l’actuelle. Le changement ne s’applique qu’une fois confirmé depuis le lien envoyé à l’adresse du compte.`,
      ],
    },
    de: {
      subject: 'Eine Änderung der PayPal-Adresse eines Kontos wurde angefordert',
      paragraphs: (p) => [
        `Jemand möchte die Gewinne eines One-Million-Clicks-Kontos statt an die bisherige an die PayPal-Adresse ${p.address} auszahlen lassen. Die Änderung gilt erst, wenn sie über den Link an die E-Mail-Adresse des Kontos bestätigt wird.`,
      ],
    },
    it: {
      subject: 'È stato chiesto di cambiare l’email PayPal di un account',
      paragraphs: (p) => [
        `Qualcuno ha chiesto di pagare le vincite di un account One Million Clicks all’email PayPal ${p.address} invece di quella attuale. Il cambio vale solo dopo la conferma dal link inviato all’email dell’account.`,
      ],
    },
    pt: {
      subject: 'Foi pedida a alteração do email PayPal de uma conta',
      paragraphs: (p) => [
        `Alguém pediu para pagar os prémios de uma conta One Million Clicks ao email PayPal ${p.address} em vez do atual. A alteração só se aplica depois de confirmada pela ligação enviada ao email da conta.`,
      ],
    },
  },
  emailChangeUndone: {
    es: {
      subject: 'Se deshizo el cambio de correo',
      paragraphs: (p) => [
        `Esta dirección dejó de ser el correo de una cuenta de One Million Clicks: el cambio se deshizo desde la dirección anterior, ${p.address}, y se cerraron todas las sesiones.`,
      ],
    },
    en: {
      subject: 'The email change was undone',
      paragraphs: (p) => [
        `This address is no longer the email of a One Million Clicks account: the change was undone from the previous address, ${p.address}, and every session was signed out.`,
      ],
    },
    fr: {
      subject: "Le changement d'adresse a été annulé",
      paragraphs: (p) => [
        `Cette adresse n'est plus celle d'un compte One Million Clicks : le changement a été annulé depuis l'adresse précédente, ${p.address}, et toutes les sessions ont été fermées.`,
      ],
    },
    de: {
      subject: 'Die E-Mail-Änderung wurde rückgängig gemacht',
      paragraphs: (p) => [
        `Diese Adresse ist nicht mehr die E-Mail eines One-Million-Clicks-Kontos: Die Änderung wurde von der vorherigen Adresse, ${p.address}, rückgängig gemacht, und alle Sitzungen wurden beendet.`,
      ],
    },
    it: {
      subject: "Il cambio dell'email è stato annullato",
      paragraphs: (p) => [
        `Questo indirizzo non è più l'email di un account One Million Clicks: il cambio è stato annullato dall'indirizzo precedente, ${p.address}, e tutte le sessioni sono state chiuse.`,
      ],
    },
    pt: {
      subject: 'A alteração do email foi anulada',
      paragraphs: (p) => [
        `Este endereço deixou de ser o email de uma conta One Million Clicks: a alteração foi anulada a partir do endereço anterior, ${p.address}, e todas as sessões foram terminadas.`,
      ],
    },
  },
  confirmEmailChange: {
    es: {
      subject: 'Confirma tu nuevo correo',
      paragraphs: (p) => [
        'Pediste usar esta dirección en tu cuenta de One Million Clicks. La cuenta no cambia de correo hasta que lo confirmes con este enlace.',
        `El enlace caduca en ${p.hours} horas y sirve una sola vez.`,
      ],
      action: 'Confirmar mi nuevo correo',
    },
    en: {
      subject: 'Confirm your new email',
      paragraphs: (p) => [
        'You asked to use this address for your One Million Clicks account. The account keeps its old email until you confirm with this link.',
        `The link expires in ${p.hours} hours and works once.`,
      ],
      action: 'Confirm my new email',
    },
    fr: {
      subject: 'Confirmez votre nouvelle adresse e-mail',
      paragraphs: (p) => [
        'Vous avez demandé à utiliser cette adresse pour votre compte One Million Clicks. Le compte garde son ancienne adresse tant que vous ne confirmez pas avec ce lien.',
        `Le lien expire dans ${p.hours} heures et ne sert qu’une fois.`,
      ],
      action: 'Confirmer ma nouvelle adresse',
    },
    de: {
      subject: 'Bestätigen Sie Ihre neue E-Mail-Adresse',
      paragraphs: (p) => [
        'Sie möchten diese Adresse für Ihr One-Million-Clicks-Konto verwenden. Das Konto behält seine alte Adresse, bis Sie über diesen Link bestätigen.',
        `Der Link läuft in ${p.hours} Stunden ab und gilt nur einmal.`,
      ],
      action: 'Neue E-Mail-Adresse bestätigen',
    },
    it: {
      subject: 'Conferma la tua nuova email',
      paragraphs: (p) => [
        'Hai chiesto di usare questo indirizzo per il tuo account One Million Clicks. L’account mantiene la vecchia email finché non confermi con questo link.',
        `Il link scade tra ${p.hours} ore e vale una sola volta.`,
      ],
      action: 'Conferma la mia nuova email',
    },
    pt: {
      subject: 'Confirma o teu novo email',
      paragraphs: (p) => [
        'Pediste para usar este endereço na tua conta One Million Clicks. A conta mantém o email antigo até confirmares com esta ligação.',
        `A ligação expira em ${p.hours} horas e só funciona uma vez.`,
      ],
      action: 'Confirmar o meu novo email',
    },
  },
  emailChangeNotice: {
    es: {
      subject: 'Se pidió cambiar el correo de tu cuenta',
      paragraphs: (p) => [
        `Se pidió cambiar el correo de tu cuenta de One Million Clicks de esta dirección a ${p.address}. Si fuiste tú, no tienes que hacer nada.`,
        `Si no fuiste tú, deshaz el cambio con este enlace durante ${p.days} días (${p.hours} horas una vez confirmado el cambio): la cuenta vuelve a esta dirección y se cierran todas sus sesiones.`,
      ],
      action: 'Deshacer el cambio de correo',
    },
    en: {
      subject: 'A change of your account email was requested',
      paragraphs: (p) => [
        `Someone asked to change the email of your One Million Clicks account from this address to ${p.address}. If it was you, there is nothing to do.`,
        `If it was not you, undo the change with this link within ${p.days} days (${p.hours} hours once the change is confirmed): the account returns to this address and every session is signed out.`,
      ],
      action: 'Undo the email change',
    },
    fr: {
      subject: "Un changement de l'adresse e-mail de votre compte a été demandé",
      paragraphs: (p) => [
        `Quelqu’un a demandé à remplacer l’adresse de votre compte One Million Clicks, celle-ci, par ${p.address}. Si c’était vous, vous n’avez rien à faire.`,
        `Sinon, annulez le changement avec ce lien pendant ${p.days} jours (${p.hours} heures une fois le changement confirmé) : le compte revient à cette adresse et toutes ses sessions sont fermées.`,
      ],
      action: 'Annuler le changement d’adresse',
    },
    de: {
      subject: 'Eine Änderung Ihrer Konto-E-Mail-Adresse wurde angefordert',
      paragraphs: (p) => [
        `Jemand hat angefordert, die E-Mail-Adresse Ihres One-Million-Clicks-Kontos von dieser Adresse auf ${p.address} zu ändern. Wenn Sie das waren, ist nichts zu tun.`,
        `Wenn nicht, machen Sie die Änderung innerhalb von ${p.days} Tagen (${p.hours} Stunden, sobald die Änderung bestätigt ist) mit diesem Link rückgängig: Das Konto erhält diese Adresse zurück, und alle Sitzungen werden beendet.`,
      ],
      action: 'Änderung rückgängig machen',
    },
    it: {
      subject: "È stato chiesto di cambiare l'email del tuo account",
      paragraphs: (p) => [
        `Qualcuno ha chiesto di cambiare l’email del tuo account One Million Clicks da questo indirizzo a ${p.address}. Se sei stato tu, non devi fare nulla.`,
        `Se non sei stato tu, annulla il cambio con questo link entro ${p.days} giorni (${p.hours} ore una volta confermato il cambio): l’account torna a questo indirizzo e tutte le sessioni vengono chiuse.`,
      ],
      action: 'Annulla il cambio di email',
    },
    pt: {
      subject: 'Foi pedida a alteração do email da tua conta',
      paragraphs: (p) => [
        `Alguém pediu para alterar o email da tua conta One Million Clicks deste endereço para ${p.address}. Se foste tu, não tens de fazer nada.`,
        `Se não foste tu, anula a alteração com esta ligação durante ${p.days} dias (${p.hours} horas depois de a alteração ser confirmada): a conta volta a este endereço e todas as sessões são terminadas.`,
      ],
      action: 'Anular a alteração de email',
    },
  },
  verifyEmail: {
    es: {
      subject: 'Confirma tu correo',
      paragraphs: (p) => [
        'Confirma que esta dirección es tuya para proteger tu cuenta de One Million Clicks y poder cobrar tus premios.',
        `El enlace caduca en ${p.hours} horas.`,
      ],
      action: 'Confirmar mi correo',
    },
    en: {
      subject: 'Confirm your email',
      paragraphs: (p) => [
        'Confirm that this address is yours, to protect your One Million Clicks account and to collect your winnings.',
        `The link expires in ${p.hours} hours.`,
      ],
      action: 'Confirm my email',
    },
    fr: {
      subject: 'Confirmez votre adresse e-mail',
      paragraphs: (p) => [
        'Confirmez que cette adresse est la vôtre pour protéger votre compte One Million Clicks et encaisser vos gains.',
        `Le lien expire dans ${p.hours} heures.`,
      ],
      action: 'Confirmer mon adresse',
    },
    de: {
      subject: 'Bestätigen Sie Ihre E-Mail-Adresse',
      paragraphs: (p) => [
        'Bestätigen Sie, dass diese Adresse Ihnen gehört, um Ihr One-Million-Clicks-Konto zu schützen und Gewinne auszuzahlen.',
        `Der Link läuft in ${p.hours} Stunden ab.`,
      ],
      action: 'E-Mail-Adresse bestätigen',
    },
    it: {
      subject: 'Conferma la tua email',
      paragraphs: (p) => [
        'Conferma che questo indirizzo è tuo per proteggere il tuo account One Million Clicks e incassare le vincite.',
        `Il link scade tra ${p.hours} ore.`,
      ],
      action: 'Conferma la mia email',
    },
    pt: {
      subject: 'Confirma o teu email',
      paragraphs: (p) => [
        'Confirma que este endereço é teu para proteger a tua conta One Million Clicks e receber os teus prémios.',
        `A ligação expira em ${p.hours} horas.`,
      ],
      action: 'Confirmar o meu email',
    },
  },
  passwordReset: {
    es: {
      subject: 'Restablece tu contraseña',
      paragraphs: (p) => [
        'Alguien (esperamos que tú) pidió restablecer la contraseña de tu cuenta de One Million Clicks.',
        `Elige una nueva con este enlace. Caduca en ${p.minutes} minutos y sirve una sola vez.`,
      ],
      action: 'Elegir una contraseña nueva',
    },
    en: {
      subject: 'Reset your password',
      paragraphs: (p) => [
        'Someone (we hope you) asked to reset the password of your One Million Clicks account.',
        `Choose a new one with this link. It expires in ${p.minutes} minutes and works once.`,
      ],
      action: 'Choose a new password',
    },
    fr: {
      subject: 'Réinitialisez votre mot de passe',
      paragraphs: (p) => [
        'Quelqu’un (vous, nous l’espérons) a demandé à réinitialiser le mot de passe de votre compte One Million Clicks.',
        `Choisissez-en un nouveau avec ce lien. Il expire dans ${p.minutes} minutes et ne sert qu’une fois.`,
      ],
      action: 'Choisir un nouveau mot de passe',
    },
    de: {
      subject: 'Setzen Sie Ihr Passwort zurück',
      paragraphs: (p) => [
        'Jemand (hoffentlich Sie) hat das Zurücksetzen des Passworts Ihres One-Million-Clicks-Kontos angefordert.',
        `Wählen Sie über diesen Link ein neues. Er läuft in ${p.minutes} Minuten ab und gilt nur einmal.`,
      ],
      action: 'Neues Passwort wählen',
    },
    it: {
      subject: 'Reimposta la tua password',
      paragraphs: (p) => [
        'Qualcuno (speriamo tu) ha chiesto di reimpostare la password del tuo account One Million Clicks.',
        `Scegline una nuova con questo link. Scade tra ${p.minutes} minuti e vale una sola volta.`,
      ],
      action: 'Scegli una nuova password',
    },
    pt: {
      subject: 'Redefine a tua palavra-passe',
      paragraphs: (p) => [
        'Alguém (esperamos que tu) pediu para redefinir a palavra-passe da tua conta One Million Clicks.',
        `Escolhe uma nova com esta ligação. Expira em ${p.minutes} minutos e só funciona uma vez.`,
      ],
      action: 'Escolher uma nova palavra-passe',
    },
  },
  passwordChanged: {
    es: {
      subject: 'Tu contraseña ha cambiado',
      paragraphs: () => [
        'La contraseña de tu cuenta de One Million Clicks se acaba de restablecer y se han cerrado todas sus sesiones.',
      ],
    },
    en: {
      subject: 'Your password was changed',
      paragraphs: () => [
        'The password of your One Million Clicks account was just reset, and every session of the account was signed out.',
      ],
    },
    fr: {
      subject: 'Votre mot de passe a été modifié',
      paragraphs: () => [
        'Le mot de passe de votre compte One Million Clicks vient d’être réinitialisé et toutes ses sessions ont été fermées.',
      ],
    },
    de: {
      subject: 'Ihr Passwort wurde geändert',
      paragraphs: () => [
        'Das Passwort Ihres One-Million-Clicks-Kontos wurde soeben zurückgesetzt, und alle Sitzungen des Kontos wurden beendet.',
      ],
    },
    it: {
      subject: 'La tua password è cambiata',
      paragraphs: () => [
        'La password del tuo account One Million Clicks è stata appena reimpostata e tutte le sessioni sono state chiuse.',
      ],
    },
    pt: {
      subject: 'A tua palavra-passe foi alterada',
      paragraphs: () => [
        'A palavra-passe da tua conta One Million Clicks acabou de ser redefinida e todas as sessões foram terminadas.',
      ],
    },
  },
};

/** Kinds whose reader did not necessarily ask for them: they say what to do if it was not them. */
const NOTICE: Record<MailKind, 'ignore' | 'security'> = {
  verifyEmail: 'ignore',
  confirmEmailChange: 'ignore',
  emailChangeNotice: 'security',
  passwordReset: 'ignore',
  passwordChanged: 'security',
  emailChangeUndone: 'security',
  confirmPayoutEmail: 'security',
  payoutEmailNotice: 'security',
  approvalStep: 'security',
};

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function renderMail(kind: MailKind, language: Language, params: MailParams = {}): RenderedMail {
  const words = KINDS[kind][language] ?? KINDS[kind].es;
  const common = COMMON[language] ?? COMMON.es;
  const closing = NOTICE[kind] === 'ignore' ? common.notYou : SECURITY[language];
  const paragraphs = words.paragraphs(
    params.address === undefined ? params : { ...params, address: defangAddress(params.address) },
  );
  const link = words.action && params.link ? { label: words.action, href: params.link } : undefined;

  const text = [
    common.greeting,
    '',
    ...paragraphs.flatMap((p) => [p, '']),
    ...(link ? [`${link.label}: ${link.href}`, ''] : []),
    closing,
    '',
    `-- ${common.signature}`,
    '',
  ].join('\n');

  const html = `<!doctype html>
<html lang="${language}">
<head><meta charset="utf-8"><title>${escapeHtml(words.subject)}</title></head>
<body style="margin:0;padding:24px;background:#ffffff;color:#1a1a1a;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5">
<p>${escapeHtml(common.greeting)}</p>
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${
  link
    ? `<p><a href="${escapeHtml(link.href)}" style="display:inline-block;padding:12px 20px;background:#0b5394;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:bold">${escapeHtml(link.label)}</a></p>
<p style="font-size:14px;color:#444444">${escapeHtml(link.href)}</p>`
    : ''
}
<p style="font-size:14px;color:#444444">${escapeHtml(closing)}</p>
<p>${escapeHtml(common.signature)}</p>
</body>
</html>
`;
  return { subject: words.subject, text, html };
}
