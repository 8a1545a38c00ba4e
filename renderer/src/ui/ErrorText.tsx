export function ErrorText({ children }: { children: string }) {
  return (
    <p role="alert" className="error-text">
      {children}
    </p>
  );
}
