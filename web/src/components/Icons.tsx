// Small inline icons (no icon font or emoji font needed on the player's machine).
export function GlobeIcon() {
  return (
    <svg className="icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" strokeWidth="2" />
      <path
        d="M3 12h18M12 3c2.8 3 2.8 15 0 18M12 3c-2.8 3-2.8 15 0 18"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
      />
    </svg>
  );
}

export function TrophyIcon() {
  return (
    <svg
      className="icon icon--trophy"
      viewBox="0 0 64 64"
      width="64"
      height="64"
      aria-hidden="true"
      focusable="false"
    >
      <path d="M18 8h28v14c0 9-6 16-14 16s-14-7-14-16V8z" fill="#ffd23f" />
      <path
        d="M18 12H8c0 9 5 14 12 15M46 12h10c0 9-5 14-12 15"
        fill="none"
        stroke="#ffd23f"
        strokeWidth="4"
      />
      <rect x="28" y="38" width="8" height="10" fill="#e0b21f" />
      <rect x="18" y="48" width="28" height="8" rx="3" fill="#ff3d7f" />
    </svg>
  );
}
