// What a page with no sign-in (or one that ended) shows instead of Patchbay: how to get one.
export function SignInNotice({ why }: { why: string }) {
  return (
    <section className="sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to Patchbay</h1>
      <p>{why.charAt(0).toUpperCase() + why.slice(1)}.</p>
      <p>
        Run <code>patchbay open</code> in a terminal: it opens Patchbay in your browser, signed in. Or run{' '}
        <code>patchbay open --print</code> and paste the link it prints into this tab’s address bar. A link works once,
        within two minutes.
      </p>
      <p>
        A sign-in serves every tab of this browser at this address. It ends after 8 hours with no Patchbay tab open, or a
        week after the link was used. <code>patchbay open --revoke-all</code> signs every browser out.
      </p>
    </section>
  );
}
